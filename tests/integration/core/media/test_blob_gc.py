"""Blob GC with real files: MemoryStore rows, LocalBlobFiles on disk, a clock the test drives.

The clock starts at the wall time, because the orphan grace compares it with real file mtimes.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from adapters.filesystem.blob_files import LocalBlobFiles
from adapters.memory.store import MemoryStore
from core.blob_names import blob_file_name
from core.blob_retention import ORPHAN_GRACE_SECONDS, UNSENT_MAX_AGE_SECONDS
from core.media.blob_service import BlobService
from core.media.blob_sweep import SENT_IDLE_SECONDS, SweepReport
from ports.blobs import BlobRecord
from ports.jobs import NewJob
from ports.pending import PendingRequest
from tests.support.blob_fixtures import clock, files
from tests.support.clock import VirtualClock

DAY = UNSENT_MAX_AGE_SECONDS

__all__ = ["clock", "files"]  # fixtures: a test asks for them by name


def blob_service(
    store: MemoryStore, files: LocalBlobFiles, clock: VirtualClock, max_bytes: int = 0
) -> BlobService:
    return BlobService(index=store, files=files, pending=store, clock=clock, max_bytes=max_bytes)


async def seed(
    store: MemoryStore,
    files: LocalBlobFiles,
    clock: VirtualClock,
    key: str,
    size: int = 100,
    *,
    sent: bool = False,
    age: float = 0.0,
    idle: float = 0.0,
) -> BlobRecord:
    """A blob as a fetch leaves it: bytes moved in, then the row."""
    folder = await files.new_staging("seed")
    staged = folder / "clip.mp4"
    staged.write_bytes(b"x" * size)
    name = blob_file_name(key, "mp4")
    await files.move_in(staged, name)
    await files.remove_staging(folder)
    now = clock.now()
    record = BlobRecord(
        key=key,
        file_name=name,
        size=size,
        duration=None,
        width=None,
        height=None,
        file_id=f"F-{key}" if sent else None,
        file_unique_id=f"U-{key}" if sent else None,
        created_at=now - age,
        last_used=now - idle,
    )
    await store.put_blob(record)
    return record


async def pin(store: MemoryStore, key: str, clock: VirtualClock) -> None:
    job = NewJob("send_confirmed", {"blob_key": key}, 3)
    await store.park(PendingRequest(f"pending-{key}", -100, 7, 1, job, key, clock.now()))


def on_disk(files: LocalBlobFiles) -> set[str]:
    return {p.name for p in files.blob_dir.iterdir()} if files.blob_dir.exists() else set()


def orphan(files: LocalBlobFiles, name: str, age: float) -> None:
    files.blob_dir.mkdir(parents=True, exist_ok=True)
    path = files.blob_dir / name
    path.write_bytes(b"left behind")
    then = time.time() - age
    os.utime(path, (then, then))


async def test_pinned_blobs_survive_release_sweep_and_the_cap(
    store: MemoryStore, files: LocalBlobFiles, clock: VirtualClock
) -> None:
    blobs = blob_service(store, files, clock, max_bytes=1)
    old_unsent = await seed(store, files, clock, "unsent", age=DAY * 3)
    sent = await seed(store, files, clock, "sent", sent=True, idle=SENT_IDLE_SECONDS * 5)
    await pin(store, "unsent", clock)
    await pin(store, "sent", clock)

    assert not await blobs.release("unsent")
    assert not await blobs.release("sent")
    report = await blobs.sweep()

    assert report == SweepReport()
    assert on_disk(files) == {old_unsent.file_name, sent.file_name}
    assert await store.blob("unsent") == old_unsent
    assert await store.blob("sent") == sent


async def test_sent_blobs_lose_their_bytes_but_keep_the_file_id(
    store: MemoryStore, files: LocalBlobFiles, clock: VirtualClock
) -> None:
    blobs = blob_service(store, files, clock)
    await seed(store, files, clock, "just-sent")
    await blobs.record_sent("just-sent", "F1", "U1")
    left_behind = await seed(
        store, files, clock, "crashed-before-release", sent=True, idle=SENT_IDLE_SECONDS + 1
    )
    recent = await seed(store, files, clock, "sent-recently", sent=True)

    assert await blobs.release("just-sent")
    report = await blobs.sweep()

    assert report == SweepReport(sent_dropped=1)
    assert on_disk(files) == {recent.file_name}
    for key, file_id in (("just-sent", "F1"), ("crashed-before-release", left_behind.file_id)):
        row = await store.blob(key)
        assert row is not None
        assert (row.file_id, row.file_name, row.size) == (file_id, None, None)
        assert await blobs.find(key) is not None


async def test_unsent_unreferenced_blobs_go_after_a_day_unused(
    store: MemoryStore, files: LocalBlobFiles, clock: VirtualClock
) -> None:
    blobs = blob_service(store, files, clock)
    await seed(store, files, clock, "stale", age=DAY + 1, idle=DAY + 1)
    fresh = await seed(store, files, clock, "fresh", age=DAY - 60, idle=DAY - 60)
    waiting = await seed(store, files, clock, "waiting", age=3 * DAY, idle=60)  # fetched again a minute ago

    report = await blobs.sweep()

    assert report == SweepReport(unsent_dropped=1)
    assert on_disk(files) == {fresh.file_name, waiting.file_name}
    assert await store.blob("stale") is None
    assert await store.blob("fresh") == fresh
    await store.forget_blob("waiting")
    await files.unlink(waiting.file_name or "")

    await clock.advance(61)
    assert (await blobs.sweep()).unsent_dropped == 1
    assert on_disk(files) == set()


async def test_the_disk_cap_evicts_least_recently_used_sent_bytes_first(
    store: MemoryStore, files: LocalBlobFiles, clock: VirtualClock
) -> None:
    blobs = blob_service(store, files, clock, max_bytes=250)
    oldest = await seed(store, files, clock, "oldest", sent=True, idle=300)
    middle = await seed(store, files, clock, "middle", sent=True, idle=200)
    newest = await seed(store, files, clock, "newest", sent=True, idle=100)
    unsent = await seed(store, files, clock, "unsent", size=100)
    await store.touch_blob("oldest", clock.now())  # used again just now: now it is the most recent

    report = await blobs.sweep()

    assert report == SweepReport(evicted_for_space=2)
    assert on_disk(files) == {oldest.file_name, unsent.file_name}
    for gone in (middle, newest):
        row = await store.blob(gone.key)
        assert row is not None
        assert (row.file_id, row.file_name) == (gone.file_id, None)


async def test_no_cap_means_sent_bytes_in_use_stay(
    store: MemoryStore, files: LocalBlobFiles, clock: VirtualClock
) -> None:
    blobs = blob_service(store, files, clock, max_bytes=0)
    records = [await seed(store, files, clock, f"k{n}", size=10_000, sent=True) for n in range(3)]

    assert await blobs.sweep() == SweepReport()
    assert on_disk(files) == {r.file_name for r in records}


async def test_orphan_files_are_swept_after_their_grace(
    store: MemoryStore, files: LocalBlobFiles, clock: VirtualClock
) -> None:
    blobs = blob_service(store, files, clock)
    kept = await seed(store, files, clock, "kept")
    orphan(files, "old-orphan.mp4", age=ORPHAN_GRACE_SECONDS + 60)
    orphan(files, "fresh-orphan.mp4", age=60)

    report = await blobs.sweep()

    assert report == SweepReport(orphans_removed=1)
    assert on_disk(files) == {kept.file_name, "fresh-orphan.mp4"}


async def test_rows_whose_bytes_vanished_are_forgotten_unless_they_hold_a_file_id(
    store: MemoryStore, files: LocalBlobFiles, clock: VirtualClock
) -> None:
    blobs = blob_service(store, files, clock)
    unsent = await seed(store, files, clock, "unsent")
    sent = await seed(store, files, clock, "sent", sent=True)
    for record in (unsent, sent):
        assert record.file_name is not None
        files.path_of(record.file_name).unlink()

    report = await blobs.sweep()

    assert report == SweepReport(rows_forgotten=1, lost_bytes_cleared=1)
    assert await store.blob("unsent") is None
    row = await store.blob("sent")
    assert row is not None
    assert (row.file_id, row.file_name) == (sent.file_id, None)


class RacingStore(MemoryStore):
    """Lets every reader of a row read it before any of them acts, as two processes might."""

    def __init__(self, readers: int) -> None:
        super().__init__()
        self.barrier = asyncio.Barrier(readers)
        self.racing = False

    async def blob(self, key: str) -> BlobRecord | None:
        record = await super().blob(key)
        if self.racing:
            await self.barrier.wait()
        return record


class CountingFiles(LocalBlobFiles):
    def __init__(self, data_dir: Path) -> None:
        super().__init__(data_dir)
        self.unlink_calls: list[str] = []

    async def unlink(self, name: str) -> bool:
        self.unlink_calls.append(name)
        return await super().unlink(name)


@pytest.mark.parametrize("sent", [True, False], ids=["sent", "unsent-stale"])
async def test_two_concurrent_releases_unlink_exactly_once(
    tmp_path: Path, clock: VirtualClock, sent: bool
) -> None:
    store = RacingStore(readers=2)
    files = CountingFiles(tmp_path)
    record = await seed(
        store, files, clock, "k", sent=sent, age=0.0 if sent else DAY + 1, idle=0.0 if sent else DAY + 1
    )
    # Two services over one index and one folder: two processes, so no shared in-process lock.
    first, second = blob_service(store, files, clock), blob_service(store, files, clock)
    store.racing = True

    outcomes = await asyncio.gather(first.release("k"), second.release("k"))

    assert sorted(outcomes) == [False, True]
    assert files.unlink_calls == [record.file_name]
    assert on_disk(files) == set()
