"""The blob service over MemoryStore and a real blob folder, on a virtual clock that starts at the
wall time (the orphan grace compares it with real file mtimes)."""

from __future__ import annotations

import pytest

from adapters.filesystem.blob_files import LocalBlobFiles
from adapters.memory.store import MemoryStore
from core.media.blob_service import BlobService
from ports.media import MediaProbe
from tests.support.blob_fixtures import clock, files
from tests.support.blob_service_fakes import (
    FakeProber,
)
from tests.support.clock import VirtualClock

__all__ = ["clock", "files"]  # fixtures: a test asks for them by name


@pytest.fixture
def prober() -> FakeProber:
    return FakeProber(MediaProbe(duration=12.5, width=640, height=360))


@pytest.fixture
def blobs(store: MemoryStore, files: LocalBlobFiles, clock: VirtualClock, prober: FakeProber) -> BlobService:
    return BlobService(index=store, files=files, pending=store, clock=clock, prober=prober)
