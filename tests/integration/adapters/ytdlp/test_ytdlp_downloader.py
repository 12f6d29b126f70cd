"""The yt-dlp adapter with the real yt-dlp and ffprobe against the local video server."""

from __future__ import annotations

import asyncio
import hashlib
import shutil
import time
from pathlib import Path

import pytest
import yt_dlp.version
from returns.result import Failure, Success

from adapters.ffmpeg import FfprobeProber
from adapters.ytdlp import YtDlpCommand, YtDlpDownloader, YtDlpLocator
from adapters.ytdlp.downloader import INFO_JSON_NAME, MAX_ENTRIES
from adapters.ytdlp.progress import MARKER
from core.blob_names import blob_key
from core.ytdlp_errors import FailureKind, classify_ytdlp
from ports.media import Progress, ToolFailure, VideoInfo
from testkit.clips import ensure_clips
from testkit.video_site import Body, Embedded, FailThen, Trickle, VideoServer, distinct_clips
from tests.support.integration import CLIPS_DIR, CLOUD_LIMIT, direct_info, names_in, wait_until
from tests.support.procs import pids_mentioning

pytestmark = pytest.mark.slow
SCRAPE_TIMEOUT = 60.0


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def scrape_one(downloader: YtDlpDownloader, url: str) -> VideoInfo:
    result = await downloader.scrape(url, timeout=SCRAPE_TIMEOUT)
    assert isinstance(result, Success), result
    [info] = result.unwrap()
    return info


def failure_of(result: object) -> ToolFailure:
    assert isinstance(result, Failure), result
    failure = result.failure()
    assert isinstance(failure, ToolFailure)
    return failure


class CountingLocator(YtDlpLocator):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def command(self) -> YtDlpCommand:
        self.calls += 1
        return super().command()


async def test_a_direct_clip_lands_in_staging_with_the_served_bytes(
    ytdlp: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    info = await scrape_one(ytdlp, video_server.url("/clips/short.mp4"))
    assert (info.extractor, info.id, info.ext, info.has_video) == ("generic", "short", "mp4", True)
    assert info.webpage_url == video_server.url("/clips/short.mp4")

    path = (await ytdlp.download(info, staging, timeout=SCRAPE_TIMEOUT)).unwrap()

    assert path.parent == staging
    assert sha256(path) == sha256(video_server.clip("short"))
    assert names_in(staging) == sorted([INFO_JSON_NAME, path.name])
    probe = await FfprobeProber().probe(path)
    assert probe is not None
    assert probe.duration == pytest.approx(2.0, abs=0.1)
    assert (probe.width, probe.height) == (160, 120)
    assert path.stat().st_size == video_server.clip("short").stat().st_size


async def test_a_page_with_a_video_tag_downloads_through_the_generic_extractor(
    ytdlp: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    info = await scrape_one(ytdlp, video_server.url("/pages/video.html"))
    assert info.extractor == "html5"
    assert info.title == "A test video (1)"
    assert info.url == info.webpage_url == video_server.url("/pages/video.html")

    path = (await ytdlp.download(info, staging, timeout=SCRAPE_TIMEOUT)).unwrap()

    assert sha256(path) == sha256(video_server.clip("short"))
    assert video_server.hits("/clips/short.mp4") == 1


async def test_a_post_with_many_videos_yields_one_more_than_the_cap_and_each_entry_downloads(
    ytdlp: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    clips = distinct_clips("many", MAX_ENTRIES + 2)
    url = await video_server.add_gallery("/pages/many", [Embedded(c) for c in clips], title="Many")

    result = await ytdlp.scrape(url, timeout=SCRAPE_TIMEOUT)

    infos = result.unwrap()
    assert len(infos) == MAX_ENTRIES + 1
    # As real pages are: one page URL and one format id for all; only the place tells them apart.
    assert {(i.extractor, i.webpage_url, i.format_id) for i in infos} == {("html5", url, "0")}
    assert [i.entry for i in infos] == list(range(1, MAX_ENTRIES + 2))
    assert len({blob_key(i) for i in infos}) == len(infos)
    assert {i.playlist_title for i in infos} == {"Many"}
    assert all(i.has_video for i in infos)
    [second_clip] = (await ensure_clips(CLIPS_DIR, [clips[1]])).values()
    path = (await ytdlp.download(infos[1], staging, timeout=SCRAPE_TIMEOUT)).unwrap()
    assert sha256(path) == sha256(second_clip)
    assert [r.path for r in video_server.requests if r.path.endswith(".mp4")] == ["/pages/many/many-1.mp4"]


async def test_a_flaky_video_host_is_retried_by_yt_dlp_within_one_attempt(
    ytdlp: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    served = Body(video_server.clip("short").read_bytes(), "video/mp4")
    video_server.set_route("/faults/flaky.mp4", FailThen(503, times=2, then=served))

    path = (
        await ytdlp.download(direct_info(video_server, "/faults/flaky.mp4"), staging, timeout=60)
    ).unwrap()

    assert sha256(path) == sha256(video_server.clip("short"))
    assert [r.status for r in video_server.requests if r.path == "/faults/flaky.mp4"] == [503, 503, 200]


async def test_the_long_clip_reports_its_duration_before_and_after_download(
    ytdlp: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    info = await scrape_one(ytdlp, video_server.url("/pages/long-with-duration.html"))
    assert info.duration == 1500
    assert info.title == "A long test video"
    path = (await ytdlp.download(info, staging, timeout=SCRAPE_TIMEOUT)).unwrap()
    probe = await FfprobeProber().probe(path)
    assert probe is not None
    assert probe.duration == pytest.approx(1500, abs=1)
    assert sha256(path) == sha256(video_server.clip("long"))


async def test_timeout_kills_a_stalled_download_leaving_no_process(
    ytdlp: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    info = direct_info(video_server, "/faults/stall.mp4")
    started = time.monotonic()

    failure = failure_of(await ytdlp.download(info, staging, timeout=2.0))

    assert failure.timed_out_after == 2.0
    assert not failure.aborted
    assert time.monotonic() - started < 2.0 + 1.0 + 5.0  # timeout + kill grace + slack
    assert classify_ytdlp(failure).kind is FailureKind.TRANSIENT
    assert classify_ytdlp(failure).reason == "Timed out after 2 seconds"
    assert pids_mentioning(str(staging)) == []
    assert ytdlp.live_pids == []
    shutil.rmtree(staging)
    assert staging.name not in names_in(staging.parent)


async def test_cancellation_kills_the_child_and_propagates(
    ytdlp: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    info = direct_info(video_server, "/faults/stall.mp4")
    task = asyncio.create_task(ytdlp.download(info, staging, timeout=60))
    await wait_until(lambda: video_server.hits("/faults/stall.mp4") == 1)
    assert pids_mentioning(str(staging)) != []

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert pids_mentioning(str(staging)) == []
    assert ytdlp.live_pids == []


async def test_progress_arrives_with_increasing_percent_for_a_slow_body(
    ytdlp: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    video_server.set_route("/faults/slow.mp4", Trickle(video_server.clip("medium").read_bytes(), seconds=1.0))
    info = direct_info(video_server, "/faults/slow.mp4")
    updates: list[Progress] = []
    output: list[str] = []

    path = (
        await ytdlp.download(
            info, staging, timeout=SCRAPE_TIMEOUT, on_progress=updates.append, on_output=output.append
        )
    ).unwrap()

    percents = [u.percent for u in updates if u.percent is not None]
    assert len(set(percents)) >= 3, updates
    assert percents == sorted(percents)
    assert percents[0] < 50
    assert percents[-1] == 100.0
    size = video_server.clip("medium").stat().st_size
    assert {u.total_bytes for u in updates} == {size}
    assert updates[-1].downloaded_bytes == size
    assert any(u.speed_bytes for u in updates)
    assert sha256(path) == sha256(video_server.clip("medium"))
    assert any("Destination" in line for line in output)
    assert not any(line.startswith(MARKER) for line in output)


async def test_with_concurrency_one_two_downloads_never_overlap(
    video_server: VideoServer, tmp_path: Path
) -> None:
    downloader = YtDlpDownloader(max_filesize_bytes=CLOUD_LIMIT, concurrency=1, kill_grace_seconds=1.0)
    short = video_server.clip("short").read_bytes()
    for name in ("a", "b"):
        video_server.set_route(f"/faults/slow-{name}.mp4", Trickle(short, seconds=0.7, chunks=10))
    infos = [direct_info(video_server, f"/faults/slow-{n}.mp4") for n in ("a", "b")]
    folders = [tmp_path / "a", tmp_path / "b"]
    for folder in folders:
        folder.mkdir()
    try:
        paths = await asyncio.gather(
            *(downloader.download(i, f, timeout=SCRAPE_TIMEOUT) for i, f in zip(infos, folders, strict=True))
        )
    finally:
        await downloader.shutdown()

    assert all(sha256(p.unwrap()) == sha256(video_server.clip("short")) for p in paths)
    [a] = [r for r in video_server.requests if r.path == "/faults/slow-a.mp4"]
    [b] = [r for r in video_server.requests if r.path == "/faults/slow-b.mp4"]
    assert a.finished is not None
    assert b.finished is not None
    first, second = sorted([a, b], key=lambda r: r.started)
    assert first.finished is not None
    assert first.finished <= second.started


async def test_shutdown_aborts_a_running_download_and_refuses_new_ones(
    video_server: VideoServer, staging: Path
) -> None:
    locator = CountingLocator()
    downloader = YtDlpDownloader(max_filesize_bytes=CLOUD_LIMIT, locator=locator, kill_grace_seconds=1.0)
    info = direct_info(video_server, "/faults/stall.mp4")
    task = asyncio.create_task(downloader.download(info, staging, timeout=60))
    await wait_until(lambda: video_server.hits("/faults/stall.mp4") == 1)

    await downloader.shutdown()
    failure = failure_of(await asyncio.wait_for(task, 10))

    assert failure.aborted
    assert failure.timed_out_after is None
    assert pids_mentioning(str(staging)) == []
    spawned = locator.calls
    later = failure_of(await downloader.scrape(video_server.url("/clips/short.mp4"), timeout=10))
    assert later.aborted
    assert locator.calls == spawned
    assert video_server.hits("/clips/short.mp4") == 0


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://127.0.0.1/clip.mp4", "javascript:alert(1)", "http:///nohost", ""]
)
async def test_other_schemes_are_refused_without_spawning(url: str, staging: Path) -> None:
    locator = CountingLocator()
    downloader = YtDlpDownloader(max_filesize_bytes=CLOUD_LIMIT, locator=locator)

    scraped = failure_of(await downloader.scrape(url, timeout=10))
    info = VideoInfo(url, url, "generic", "x", "x", "mp4", "mp4", "{}")
    downloaded = failure_of(await downloader.download(info, staging, timeout=10))

    assert locator.calls == 0
    assert names_in(staging) == []
    for failure in (scraped, downloaded):
        assert classify_ytdlp(failure).kind is FailureKind.NOT_A_VIDEO


async def test_version_is_the_packaged_one(ytdlp: YtDlpDownloader) -> None:
    assert await ytdlp.version() == yt_dlp.version.__version__


async def test_verbose_output_reaches_the_sink(ytdlp: YtDlpDownloader, video_server: VideoServer) -> None:
    lines: list[str] = []
    result = await ytdlp.scrape(
        video_server.url("/clips/short.mp4"), timeout=SCRAPE_TIMEOUT, verbose=True, on_output=lines.append
    )
    assert isinstance(result, Success)
    assert any(line.startswith("[debug] ") for line in lines)
    assert any("--ignore-config" in line for line in lines)  # the command line yt-dlp saw


async def test_a_staging_folder_that_cannot_be_written_is_a_failed_download_not_an_exception(
    ytdlp: YtDlpDownloader, video_server: VideoServer, tmp_path: Path
) -> None:
    info = direct_info(video_server, "/clips/short.mp4")

    result = await ytdlp.download(info, tmp_path / "gone", timeout=SCRAPE_TIMEOUT)

    assert isinstance(result, Failure)
    assert result.failure().stderr_tail.startswith("ERROR: could not write the info file:")
    assert classify_ytdlp(result.failure()).kind is FailureKind.TRANSIENT
    assert video_server.hits("/clips/short.mp4") == 0
