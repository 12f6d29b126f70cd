"""Shared fixtures for every test layer."""

from __future__ import annotations

import pytest

from tests.support.clock import VirtualClock


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()
