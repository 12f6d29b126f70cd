"""The shared delivery path, seen from a job's side: what its destination and report are asked."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from returns.result import Failure, Success

from adapters.memory.store import MemoryStore
from core.blob_names import blob_file_name
from core.jobs.outcome import Deferred, JobFailure, JobOutcome
from core.work.delivery.video import Delivery
from ports.blobs import BlobRecord
from ports.errors import StoreError
from ports.media import VideoInfo
from ports.messenger import MessengerError, SentVideo, StoredVideo, VideoFile, VideoMeta
from tests.support.clock import VirtualClock
from tests.support.delivery import Recording
from tests.support.downloader import http_error, video
from tests.support.world import World

URL = "https://videos.example/watch/1"
KEY = "testsite:v1:18"


@pytest.fixture
def world(built_world: World) -> World:
    """The wiring with its engine at rest: the tests call the delivery path themselves."""
    return built_world


async def deliver(world: World, info: VideoInfo, job: Recording) -> JobOutcome:
    delivery: Delivery = world.container.delivery()
    return await delivery.deliver(info, job, job)


async def test_a_new_video_is_downloaded_once_uploaded_and_its_file_id_recorded(world: World) -> None:
    job = Recording()
    assert await deliver(world, video(URL), job) == Success(None)
    size = len(b"video bytes of v1")
    assert job.calls == [
        "hold 12.0 None",
        "found v1",
        "downloading",
        "progress 50",
        f"uploading {size}",
        "sending",
        f"send file {blob_file_name(KEY, 'mp4')}",
        f"sent {size}",
        "delivered F-new",
    ]
    record = await world.store.blob(KEY)
    assert record is not None
    assert (record.file_id, record.file_name) == ("F-new", None)


class LosesItsWritesAfterTheSend(MemoryStore):
    """The database goes away between Telegram taking the video and the file_id's record."""

    async def set_file_id(self, key: str, file_id: str, file_unique_id: str, now: float) -> None:
        raise StoreError("PostgreSQL: connection was closed in the middle of operation")


async def test_a_sent_video_whose_record_the_store_refuses_is_delivered_not_sent_again(
    clock: VirtualClock, tmp_path: Path
) -> None:
    world = World(clock, tmp_path, store=LosesItsWritesAfterTheSend())
    job = Recording()

    assert await deliver(world, video(URL), job) == Success(None)  # a failure would send it again

    sends = [call for call in job.calls if call.startswith("send ")]
    assert sends == [f"send file {blob_file_name(KEY, 'mp4')}"]
    assert job.calls[-1] == "delivered F-new"


async def test_a_video_telegram_has_goes_by_file_id_without_a_download(world: World) -> None:
    await world.store.put_blob(stored_record("F-old"))
    job = Recording()
    assert await deliver(world, video(URL), job) == Success(None)
    assert job.calls == [
        "hold 12.0 None",
        "found v1",  # the log's last text shows what the video is, a cache hit's too
        "sending",
        "send stored F-old",
        "sent None",
        "delivered F-old",
    ]
    assert world.downloader.downloads == []


async def test_a_file_id_telegram_refuses_is_forgotten_and_the_video_downloaded_again(world: World) -> None:
    await world.store.put_blob(stored_record("F-stale"))
    job = Recording()
    job.wrong_file_id = True
    assert await deliver(world, video(URL), job) == Success(None)
    assert job.calls[:5] == ["hold 12.0 None", "found v1", "sending", "send stored F-stale", "unsent"]
    assert job.calls[-1] == "delivered F-new"
    assert world.downloader.downloads == ["v1"]


async def test_a_video_announced_too_large_even_compressed_is_not_downloaded(world: World) -> None:
    job = Recording()
    size = world.settings.upload_limit_bytes + 1
    # 25 minutes in 50 MB leaves under 250 kbit/s of picture: not worth watching.
    await deliver(world, video(URL, filesize=size, duration=1500.0), job)
    assert job.calls == ["hold 1500.0 None", "found v1", "ending", f"too large {size}"]
    assert world.downloader.downloads == []


async def test_a_video_announced_over_the_download_cap_is_not_downloaded(
    clock: VirtualClock, tmp_path: Path
) -> None:
    job = Recording()
    limit = 50 * 1024 * 1024  # the Bot API's upload limit without a local server
    world = World(clock, tmp_path, VIDRELAY_MAX_DOWNLOAD_BYTES=str(limit * 4))
    assert world.settings.upload_limit_bytes == limit
    size = limit * 5
    await world.container.delivery().deliver(video(URL, filesize=size), job, job)
    assert job.calls[-2:] == ["ending", f"too large {size}"]
    assert world.downloader.downloads == []


async def test_a_video_announced_over_the_limit_but_short_is_downloaded_to_be_compressed(
    world: World,
) -> None:
    job = Recording()
    await deliver(world, video(URL, filesize=world.settings.upload_limit_bytes + 1), job)
    assert world.downloader.downloads == ["v1"]
    assert job.calls[-1] == "delivered F-new"


async def test_a_download_refused_as_too_large_is_the_too_large_answer_not_a_failure(world: World) -> None:
    from ports.media import ToolFailure

    world.downloader.download_failures["v1"].append(
        ToolFailure(
            "ERROR: the download passed the download cap\n", exit_code=None, too_large_bytes=7_000_000
        )
    )
    job = Recording()
    assert await deliver(world, video(URL), job) == Success(None)
    assert job.calls[-2:] == ["ending", "too large 7000000"]


async def test_bytes_too_large_for_the_upload_are_not_sent(world: World) -> None:
    world.downloader.content["v1"] = b"x" * (world.settings.upload_limit_bytes + 1)
    job = Recording()
    await deliver(world, video(URL, filesize=None), job)
    assert job.calls[-2:] == ["ending", f"too large {world.settings.upload_limit_bytes + 1}"]
    assert not any(call.startswith("send") for call in job.calls)


async def test_a_destination_that_holds_the_video_ends_the_path_before_any_download(world: World) -> None:
    job = Recording(hold_longer_than=10.0)
    assert await deliver(world, video(URL), job) == Success(None)
    assert job.calls == ["hold 12.0 None"]
    assert world.downloader.downloads == []


async def test_a_failed_download_is_a_classified_failure_and_nothing_is_sent(world: World) -> None:
    world.downloader.download_failures["v1"].append(http_error(404, "webpage"))
    job = Recording()
    outcome = await deliver(world, video(URL), job)
    assert isinstance(outcome, Failure)
    failure = outcome.failure()
    assert isinstance(failure, JobFailure)
    assert (failure.permanent, failure.code) == (True, "unavailable")
    assert not any(call.startswith("send") for call in job.calls)


async def test_the_videos_of_a_link_leave_out_photos_and_never_come_back_empty(world: World) -> None:
    delivery: Delivery = world.container.delivery()
    world.downloader.serve(URL, video(URL, "v1"), video(URL, "photo", has_video=False))
    found = await delivery.videos(URL, Recording())
    assert [v.id for v in found.unwrap()] == ["v1"]

    only_photos = "https://videos.example/photos"
    world.downloader.serve(only_photos, video(only_photos, "p", has_video=False))
    none = await delivery.videos(only_photos, Recording())
    assert isinstance(none, Failure)
    assert none.failure().code == "not_a_video"


async def test_a_busy_chat_defers_the_job_and_keeps_the_bytes_for_its_turn(world: World) -> None:
    job = Recording()
    job.busy_until = world.clock.now() + 40

    assert await deliver(world, video(URL), job) == Success(Deferred(world.clock.now() + 40))
    assert not any(call.startswith("send") for call in job.calls)
    job.busy_until = None
    assert await deliver(world, video(URL), job) == Success(None)
    assert world.downloader.downloads == ["v1"]  # the next turn found the bytes on disk
    assert job.calls[-1] == "delivered F-new"


async def test_telegrams_retry_after_on_the_video_defers_instead_of_failing(world: World) -> None:
    class Flooded(Recording):
        async def send(self, video: VideoFile | StoredVideo, meta: VideoMeta) -> SentVideo | None:
            raise MessengerError("Too Many Requests: retry after 7", 429, 7)

    job = Flooded()
    assert await deliver(world, video(URL), job) == Success(Deferred(world.clock.now() + 7))
    assert job.calls[-2:] == ["sending", "unsent"]


class SlowUpload(Recording):
    """A destination whose upload reads the file only once `go` is set (a slow connection)."""

    def __init__(self) -> None:
        super().__init__()
        self.go = asyncio.Event()
        self.uploaded: bytes | None = None

    async def send(self, video: VideoFile | StoredVideo, meta: VideoMeta) -> SentVideo | None:
        if isinstance(video, VideoFile):
            await self.go.wait()
            self.uploaded = video.path.read_bytes()
        return await super().send(video, meta)


async def test_bytes_two_jobs_share_stay_on_disk_until_the_last_of_them_sent_them(
    world: World, clock: VirtualClock
) -> None:
    world.downloader.slow["v1"] = 2.0  # long enough for the second job to join the download
    fast, slow = Recording(), SlowUpload()
    first = asyncio.create_task(deliver(world, video(URL), fast))
    second = asyncio.create_task(deliver(world, video(URL), slow))
    await clock.run_until(first.done)
    assert first.result() == Success(None)
    assert fast.calls[-1] == "delivered F-new"

    slow.go.set()

    assert await second == Success(None)
    assert slow.uploaded == b"video bytes of v1"
    assert world.downloader.downloads == ["v1"]
    record = await world.store.blob(KEY)
    assert record is not None
    assert (record.file_id, record.file_name) == ("F-new", None)  # released once both were done
    assert list(world.files.blob_dir.iterdir()) == []


def stored_record(file_id: str) -> BlobRecord:
    return BlobRecord(KEY, None, None, 12.0, 640, 360, file_id, f"U-{file_id}", 0.0, 0.0)
