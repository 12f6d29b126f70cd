from __future__ import annotations

import pytest

from tests.support.chat_settings_rig import Rig
from tests.support.clock import VirtualClock


@pytest.fixture
def rig(clock: VirtualClock) -> Rig:
    return Rig(clock)
