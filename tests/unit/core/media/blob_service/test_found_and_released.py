"""Do we have it (a file_id, or bytes that still exist), and letting the bytes go once sent: never
the bytes a day-old unsent blob, a pinned one, or a job still uploading holds."""

from __future__ import annotations

import asyncio

from adapters.filesystem.blob_files import LocalBlobFiles
from adapters.memory.store import MemoryStore
from core.blob_names import blob_file_name
from core.blob_retention import UNSENT_MAX_AGE_SECONDS
from core.media.blob_service import BlobService
from tests.support.blob_service_fakes import (
    INFO,
    KEY,
    WAIT,
    FakeDownloader,
    pin,
)
from tests.support.clock import VirtualClock


async def test_found_is_a_file_id_or_bytes_that_still_exist(
    blobs: BlobService, store: MemoryStore, files: LocalBlobFiles
) -> None:
    assert await blobs.find(KEY) is None
    record = (await blobs.fetch(INFO, FakeDownloader(), timeout=1.0)).unwrap()
    assert await blobs.find(KEY) is not None
    assert await blobs.find(KEY) == record
    assert blobs.path_of(record) == files.path_of(blob_file_name(KEY, "mp4"))

    assert record.file_name is not None
    files.path_of(record.file_name).unlink()
    assert await blobs.find(KEY) is None

    await blobs.record_sent(KEY, "F1", "U1")
    found = await blobs.find(KEY)
    assert found is not None
    assert found.file_id == "F1"
    assert found.file_name is None
    assert blobs.path_of(found) is None


async def test_release_after_sending_unlinks_the_bytes_and_keeps_the_file_id(
    blobs: BlobService, store: MemoryStore, files: LocalBlobFiles
) -> None:
    await blobs.fetch(INFO, FakeDownloader(), timeout=1.0)
    await blobs.record_sent(KEY, "F1", "U1")

    assert await blobs.release(KEY) is True
    assert await blobs.release(KEY) is False

    row = await store.blob(KEY)
    assert row is not None
    assert (row.file_id, row.file_name) == ("F1", None)
    assert await files.listing() == []
    assert await blobs.find(KEY) is not None


async def test_release_keeps_unsent_bytes_for_a_day(
    blobs: BlobService, store: MemoryStore, files: LocalBlobFiles, clock: VirtualClock
) -> None:
    await blobs.fetch(INFO, FakeDownloader(), timeout=1.0)

    assert await blobs.release(KEY) is False
    await clock.advance(UNSENT_MAX_AGE_SECONDS + 1)
    assert await blobs.release(KEY) is True

    assert await store.blob(KEY) is None
    assert await files.listing() == []


async def test_release_keeps_pinned_bytes_even_when_sent(
    blobs: BlobService, store: MemoryStore, files: LocalBlobFiles, clock: VirtualClock
) -> None:
    await blobs.fetch(INFO, FakeDownloader(), timeout=1.0)
    await blobs.record_sent(KEY, "F1", "U1")
    await pin(store, KEY, clock)

    assert await blobs.release(KEY) is False

    assert len(await files.listing()) == 1
    await store.cancel("p1", 7)
    assert await blobs.release(KEY) is True


async def test_bytes_held_by_jobs_stay_until_the_last_holder_lets_go(
    blobs: BlobService, store: MemoryStore, files: LocalBlobFiles
) -> None:
    async with blobs.holding(KEY):
        async with blobs.holding(KEY):
            await blobs.fetch(INFO, FakeDownloader(), timeout=1.0)
            await blobs.record_sent(KEY, "F1", "U1")
            assert await blobs.release(KEY) is False  # the other holder may still be uploading
        assert len(await files.listing()) == 1
        assert await blobs.drop_if(KEY, lambda record, pinned: True) is False  # nor a sweep
        assert await blobs.release(KEY) is False
        assert len(await files.listing()) == 1

    assert await files.listing() == []
    row = await store.blob(KEY)
    assert row is not None
    assert (row.file_id, row.file_name) == ("F1", None)


async def test_a_holder_that_never_asked_for_a_release_leaves_the_bytes_be(
    blobs: BlobService, files: LocalBlobFiles
) -> None:
    async with blobs.holding(KEY):
        await blobs.fetch(INFO, FakeDownloader(), timeout=1.0)
        await blobs.record_sent(KEY, "F1", "U1")

    assert len(await files.listing()) == 1  # a deferred turn (Telegram's pacing) comes back for them


async def test_a_release_waits_for_a_fetch_of_the_same_key_in_progress(
    blobs: BlobService, store: MemoryStore, files: LocalBlobFiles
) -> None:
    downloader = FakeDownloader()
    await blobs.fetch(INFO, downloader, timeout=1.0)
    await blobs.record_sent(KEY, "F1", "U1")
    await blobs.release(KEY)
    downloader.started.clear()
    downloader.finish.clear()
    fetching = asyncio.create_task(blobs.fetch(INFO, downloader, timeout=1.0))
    await asyncio.wait_for(downloader.started.wait(), WAIT)

    releasing = asyncio.create_task(blobs.release(KEY))
    downloader.finish.set()
    record = (await fetching).unwrap()

    assert await releasing is True  # it ran after the fetch recorded the new bytes, and saw them
    assert record.file_name is not None
    assert not files.path_of(record.file_name).exists()
    row = await store.blob(KEY)
    assert row is not None
    assert row.file_name is None
