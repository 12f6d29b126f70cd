"""BlobService.fetch: the bytes come in once, however many ask, and leave nothing behind when
the download fails, crashes or is left by everyone who waited for it."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from returns.result import Failure, Success

from adapters.filesystem.blob_files import LocalBlobFiles
from adapters.memory.store import MemoryStore
from core.blob_names import blob_file_name
from core.media.blob_service import BlobService
from ports.blobs import BlobRecord
from ports.media import Progress, ToolFailure
from tests.support.blob_service_fakes import (
    INFO,
    KEY,
    WAIT,
    FakeDownloader,
    FakeProber,
    staging_folders,
)
from tests.support.clock import VirtualClock


async def test_fetch_moves_the_single_file_in_records_it_and_removes_the_staging_folder(
    blobs: BlobService, store: MemoryStore, files: LocalBlobFiles, clock: VirtualClock, prober: FakeProber
) -> None:
    downloader = FakeDownloader(b"0123456789")

    result = await blobs.fetch(INFO, downloader, timeout=300.0)

    expected_name = blob_file_name(KEY, "mp4")
    assert result == Success(
        BlobRecord(KEY, expected_name, 10, 12.5, 640, 360, None, None, clock.now(), clock.now())
    )
    assert await store.blob(KEY) == result.unwrap()
    assert files.path_of(expected_name).read_bytes() == b"0123456789"
    assert prober.probed == [files.path_of(expected_name)]
    assert downloader.calls[0][2] == 300.0
    assert staging_folders(files) == []


async def test_the_file_name_takes_the_extension_of_the_produced_file(
    blobs: BlobService, files: LocalBlobFiles
) -> None:
    result = await blobs.fetch(INFO, FakeDownloader(suffix=".webm"), timeout=1.0)

    assert result.unwrap().file_name == blob_file_name(KEY, "webm")
    assert files.path_of(blob_file_name(KEY, "webm")).exists()


async def test_without_a_probe_the_scraped_dimensions_are_kept(
    store: MemoryStore, files: LocalBlobFiles, clock: VirtualClock
) -> None:
    blobs = BlobService(index=store, files=files, pending=store, clock=clock, prober=FakeProber(None))

    record = (await blobs.fetch(INFO, FakeDownloader(), timeout=1.0)).unwrap()

    assert (record.duration, record.width, record.height) == (9.0, 320, 240)


async def test_a_second_fetch_uses_the_bytes_on_disk_and_marks_them_used(
    blobs: BlobService, store: MemoryStore, clock: VirtualClock
) -> None:
    downloader = FakeDownloader()
    first = (await blobs.fetch(INFO, downloader, timeout=1.0)).unwrap()
    await clock.advance(60)

    second = (await blobs.fetch(INFO, downloader, timeout=1.0)).unwrap()

    assert len(downloader.calls) == 1
    assert second == replace(first, last_used=clock.now())
    assert (await store.blob(KEY)) == second


async def test_ten_concurrent_fetches_share_one_download_and_all_hear_its_progress(
    blobs: BlobService, files: LocalBlobFiles
) -> None:
    downloader = FakeDownloader()
    downloader.finish.clear()
    heard: list[list[Progress]] = [[] for _ in range(10)]
    output: list[list[str]] = [[] for _ in range(10)]
    fetches = [
        asyncio.create_task(
            blobs.fetch(
                INFO, downloader, timeout=1.0, on_progress=heard[n].append, on_output=output[n].append
            )
        )
        for n in range(10)
    ]
    await asyncio.wait_for(downloader.started.wait(), WAIT)

    downloader.finish.set()
    results = await asyncio.gather(*fetches)

    assert len(downloader.calls) == 1
    assert len({r.unwrap() for r in results}) == 1
    assert [[p.percent for p in progress] for progress in heard] == [[50.0]] * 10
    assert output == [["[download]  50.0%"]] * 10
    assert [f.name for f in await files.listing()] == [blob_file_name(KEY, "mp4")]
    assert staging_folders(files) == []


async def test_a_failed_download_returns_the_tool_failure_and_leaves_nothing_behind(
    blobs: BlobService, store: MemoryStore, files: LocalBlobFiles
) -> None:
    downloader = FakeDownloader()
    failure = ToolFailure("ERROR: [example] 1: HTTP Error 503", exit_code=1)
    downloader.failure = failure

    result = await blobs.fetch(INFO, downloader, timeout=1.0)

    assert result == Failure(failure)
    assert await store.blob(KEY) is None
    assert await files.listing() == []
    assert staging_folders(files) == []


async def test_a_crashing_download_reaches_every_waiter_and_cleans_up(
    blobs: BlobService, files: LocalBlobFiles
) -> None:
    downloader = FakeDownloader()
    downloader.finish.clear()
    downloader.error = RuntimeError("downloader bug")
    fetches = [asyncio.create_task(blobs.fetch(INFO, downloader, timeout=1.0)) for _ in range(3)]
    await asyncio.wait_for(downloader.started.wait(), WAIT)

    downloader.finish.set()
    outcomes = await asyncio.gather(*fetches, return_exceptions=True)

    assert [str(o) for o in outcomes] == ["downloader bug"] * 3
    assert staging_folders(files) == []
    assert len(downloader.calls) == 1


async def test_a_cancelled_waiter_does_not_stop_a_download_others_wait_for(blobs: BlobService) -> None:
    downloader = FakeDownloader()
    downloader.finish.clear()
    leaving = asyncio.create_task(blobs.fetch(INFO, downloader, timeout=1.0))
    staying = asyncio.create_task(blobs.fetch(INFO, downloader, timeout=1.0))
    await asyncio.wait_for(downloader.started.wait(), WAIT)

    leaving.cancel()
    with pytest.raises(asyncio.CancelledError):
        await leaving
    downloader.finish.set()

    assert (await staying).unwrap().key == KEY
    assert not downloader.cancelled


async def test_the_last_waiter_leaving_cancels_the_download_and_a_new_fetch_starts_afresh(
    blobs: BlobService, store: MemoryStore, files: LocalBlobFiles
) -> None:
    downloader = FakeDownloader()
    downloader.finish.clear()
    only = asyncio.create_task(blobs.fetch(INFO, downloader, timeout=1.0))
    await asyncio.wait_for(downloader.started.wait(), WAIT)

    only.cancel()
    with pytest.raises(asyncio.CancelledError):
        await only

    assert downloader.cancelled
    assert staging_folders(files) == []
    assert await store.blob(KEY) is None
    downloader.finish.set()
    assert (await blobs.fetch(INFO, downloader, timeout=1.0)).unwrap().key == KEY
    assert len(downloader.calls) == 2


async def test_a_download_again_after_a_refused_file_id_keeps_nothing_stale(
    blobs: BlobService, store: MemoryStore
) -> None:
    downloader = FakeDownloader()
    await blobs.fetch(INFO, downloader, timeout=1.0)
    await blobs.record_sent(KEY, "F1", "U1")
    assert await blobs.release(KEY)

    await blobs.clear_file_id(KEY)

    assert await blobs.find(KEY) is None
    record = (await blobs.fetch(INFO, downloader, timeout=1.0)).unwrap()
    assert record.file_id is None
    assert record.file_name is not None
    assert len(downloader.calls) == 2


async def test_downloading_again_while_a_file_id_is_known_keeps_the_file_id(
    blobs: BlobService, store: MemoryStore
) -> None:
    downloader = FakeDownloader()
    await blobs.fetch(INFO, downloader, timeout=1.0)
    await blobs.record_sent(KEY, "F1", "U1")
    await blobs.release(KEY)

    record = (await blobs.fetch(INFO, downloader, timeout=1.0)).unwrap()

    assert (record.file_id, record.file_unique_id) == ("F1", "U1")
    assert record.file_name is not None
