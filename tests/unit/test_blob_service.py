"""BlobService over MemoryStore and a real blob folder: fetch once, find, send, release."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path

import pytest
from returns.result import Failure, Result, Success

from adapters.filesystem.blob_files import LocalBlobFiles
from adapters.memory.store import MemoryStore
from core.blob_names import blob_file_name, blob_key
from core.blob_retention import UNSENT_MAX_AGE_SECONDS
from core.media.blob_service import BlobService
from ports.blobs import BlobRecord
from ports.jobs import NewJob
from ports.media import MediaProbe, OutputSink, Progress, ProgressSink, ToolFailure, VideoInfo
from ports.pending import PendingRequest
from tests.support.clock import VirtualClock

WAIT = 5.0
"""Upper bound for events the test is waiting for; reached only when the code is broken."""

INFO = VideoInfo(
    url="https://example.com/v/1",
    webpage_url="https://example.com/v/1",
    extractor="example",
    id="1",
    title="A clip",
    format_id="hd",
    ext="mp4",
    info_json="{}",
    duration=9.0,
    width=320,
    height=240,
)
KEY = blob_key(INFO)


def empty_folder(path: Path) -> bool:
    return path.is_dir() and not any(path.iterdir())


def path_exists(path: Path) -> bool:
    return path.exists()


class FakeDownloader:
    """Writes one file into the staging folder; the test decides when it may finish."""

    def __init__(self, content: bytes = b"video bytes", suffix: str = ".mp4") -> None:
        self.content = content
        self.suffix = suffix
        self.calls: list[tuple[VideoInfo, Path, float]] = []
        self.started = asyncio.Event()
        self.finish = asyncio.Event()
        self.finish.set()
        self.cancelled = False
        self.failure: ToolFailure | None = None
        self.error: Exception | None = None

    async def scrape(
        self, url: str, *, timeout: float, verbose: bool = False, on_output: OutputSink | None = None
    ) -> Result[list[VideoInfo], ToolFailure]:
        raise AssertionError("the blob store never scrapes")

    async def download(
        self,
        info: VideoInfo,
        staging: Path,
        *,
        timeout: float,
        verbose: bool = False,
        on_progress: ProgressSink | None = None,
        on_output: OutputSink | None = None,
    ) -> Result[Path, ToolFailure]:
        self.calls.append((info, staging, timeout))
        assert empty_folder(staging)
        (staging / "clip.part").write_bytes(b"half")
        self.started.set()
        if on_progress:
            on_progress(Progress(percent=50.0, speed_bytes=None, eta_seconds=None))
        if on_output:
            on_output("[download]  50.0%")
        try:
            await self.finish.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        if self.error:
            raise self.error
        if self.failure:
            return Failure(self.failure)
        (staging / "clip.part").unlink()
        produced = staging / f"A clip [1]{self.suffix}"
        produced.write_bytes(self.content)
        return Success(produced)

    async def version(self) -> str | None:
        return "test"


class FakeProber:
    def __init__(self, probe: MediaProbe | None = None) -> None:
        self.probe_result = probe
        self.probed: list[Path] = []

    async def probe(self, path: Path) -> MediaProbe | None:
        self.probed.append(path)
        assert path_exists(path)
        return self.probe_result


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock(start=time.time())


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def files(tmp_path: Path) -> LocalBlobFiles:
    return LocalBlobFiles(tmp_path)


@pytest.fixture
def prober() -> FakeProber:
    return FakeProber(MediaProbe(duration=12.5, width=640, height=360))


@pytest.fixture
def blobs(store: MemoryStore, files: LocalBlobFiles, clock: VirtualClock, prober: FakeProber) -> BlobService:
    return BlobService(index=store, files=files, pending=store, clock=clock, prober=prober)


def staging_folders(files: LocalBlobFiles) -> list[Path]:
    return list(files.staging_dir.iterdir()) if files.staging_dir.exists() else []


async def pin(store: MemoryStore, key: str, clock: VirtualClock) -> None:
    job = NewJob("send_confirmed", {"key": key}, 3)
    await store.park(PendingRequest("p1", -100, 7, 1, job, key, clock.now()))


# fetch ----------------------------------------------------------------------------------------


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


# do we have it? -------------------------------------------------------------------------------


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


# sent, released -------------------------------------------------------------------------------


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
