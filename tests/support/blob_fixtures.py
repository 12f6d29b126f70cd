"""Fixtures of the tests that keep blobs in a real folder: the folder, and a virtual clock that
starts at the wall time (the orphan grace compares it with the real files' mtimes); the rows are
in the memory store every test gets (tests/conftest.py). A conftest or test module imports them
to use them."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from adapters.filesystem.blob_files import LocalBlobFiles
from tests.support.clock import VirtualClock


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock(start=time.time())


@pytest.fixture
def files(tmp_path: Path) -> LocalBlobFiles:
    return LocalBlobFiles(tmp_path)
