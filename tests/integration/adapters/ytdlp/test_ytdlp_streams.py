"""HLS and DASH with the real yt-dlp against the local video site: the variant that fits is chosen
before anything is fetched (and only its segments are), separate tracks arrive merged, and the
download cap stops what would pass it."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.ffmpeg import FfprobeProber
from adapters.ytdlp import YtDlpDownloader
from ports.media import MediaProbe, VideoInfo
from testkit.video_site import Stall, Trickle, VideoServer
from tests.support.integration import CLIPS_DIR, CLOUD_LIMIT, direct_info, names_in
from tests.support.streams import Variant, make_dash, make_hls, serve_folder

pytestmark = pytest.mark.slow
STREAMS_DIR = CLIPS_DIR / "streams"
TWO = (Variant(240, 400), Variant(120, 100))
"""Variant 0 is the bigger one (320x240 at 400 kbps), variant 1 the smaller (160x120 at 100 kbps)."""


@pytest.fixture
async def tight() -> AsyncIterator[YtDlpDownloader]:
    """A downloader whose upload limit only the smaller variant fits (~180 KB vs ~55 KB estimated)."""
    downloader = YtDlpDownloader(max_filesize_bytes=100_000, kill_grace_seconds=1.0)
    yield downloader
    await downloader.shutdown()


async def scrape_one(downloader: YtDlpDownloader, url: str) -> VideoInfo:
    [info] = (await downloader.scrape(url, timeout=60)).unwrap()
    return info


async def probe(path: Path) -> MediaProbe:
    probed = await FfprobeProber().probe(path)
    assert probed is not None
    return probed


def fetched(server: VideoServer, pattern: str) -> list[str]:
    return sorted({r.path for r in server.requests if re.search(pattern, r.path)})


async def test_an_hls_master_delivers_its_best_variant_with_sound(
    ytdlp: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    serve_folder(video_server, "/hls", await make_hls(STREAMS_DIR, TWO))

    info = await scrape_one(ytdlp, video_server.url("/hls/master.m3u8"))
    path = (await ytdlp.download(info, staging, timeout=60)).unwrap()

    probed = await probe(path)
    assert (probed.video_codec, probed.audio_codec, probed.height) == ("h264", "aac", 240)
    assert probed.duration == pytest.approx(3.0, abs=0.3)
    assert info.filesize is not None  # estimated from the declared bandwidth
    assert fetched(video_server, r"/hls/v1_") == []


async def test_a_variant_over_the_limit_is_never_fetched_when_a_smaller_one_fits(
    tight: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    serve_folder(video_server, "/hls", await make_hls(STREAMS_DIR, TWO))

    info = await scrape_one(tight, video_server.url("/hls/master.m3u8"))
    path = (await tight.download(info, staging, timeout=60)).unwrap()

    assert info.height == 120
    assert info.filesize is not None
    assert info.filesize <= 100_000

    probed = await probe(path)
    assert (probed.video_codec, probed.audio_codec, probed.height) == ("h264", "aac", 120)
    assert fetched(video_server, r"/hls/v1_.*\.ts$") != []
    assert fetched(video_server, r"/hls/v0_.*\.ts$") == []


async def test_a_dash_manifest_with_separate_tracks_arrives_merged(
    ytdlp: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    serve_folder(video_server, "/dash", await make_dash(STREAMS_DIR, TWO))

    info = await scrape_one(ytdlp, video_server.url("/dash/manifest.mpd"))
    path = (await ytdlp.download(info, staging, timeout=60)).unwrap()

    probed = await probe(path)
    assert (probed.video_codec, probed.audio_codec, probed.height) == ("h264", "aac", 240)
    assert probed.duration == pytest.approx(3.0, abs=0.3)
    assert info.duration == pytest.approx(3.0)  # from the fragments: yt-dlp reports none for DASH
    assert fetched(video_server, r"chunk-stream2-") != []  # the audio track


async def test_a_dash_representation_over_the_limit_is_never_fetched(
    tight: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    serve_folder(video_server, "/dash", await make_dash(STREAMS_DIR, TWO))

    info = await scrape_one(tight, video_server.url("/dash/manifest.mpd"))
    path = (await tight.download(info, staging, timeout=60)).unwrap()

    probed = await probe(path)
    assert (probed.height, probed.audio_codec) == (120, "aac")
    assert fetched(video_server, r"stream0") == []


async def test_a_body_announced_over_the_cap_is_refused_before_a_byte_of_it(
    video_server: VideoServer, staging: Path
) -> None:
    # Headers promise 5 MB, then nothing: only a refusal by the announced length can end this quickly.
    video_server.set_route("/big.mp4", Stall(content_length=5_000_000))
    downloader = YtDlpDownloader(max_filesize_bytes=CLOUD_LIMIT, max_download_bytes=1_000_000)
    try:
        result = await downloader.download(direct_info(video_server, "/big.mp4"), staging, timeout=30)
    finally:
        await downloader.shutdown()

    failure = result.failure()
    assert failure.too_large_bytes == 5_000_000
    assert failure.timed_out_after is None
    assert "larger than the download cap" in failure.stderr_tail
    assert [n for n in names_in(staging) if not n.startswith(".vidrelay")] == []


async def test_fragments_each_under_the_cap_are_stopped_once_their_sum_passes_it(
    video_server: VideoServer, staging: Path
) -> None:
    folder = await make_hls(STREAMS_DIR, (Variant(240, 400),), seconds=8.0)
    serve_folder(video_server, "/capped", folder)
    segments = sorted(p for p in folder.iterdir() if p.suffix == ".ts")
    for segment in segments:  # each segment takes a while, so the stop comes mid-stream
        video_server.set_route(
            f"/capped/{segment.name}", Trickle(segment.read_bytes(), seconds=0.4, chunks=4)
        )
    cap = sum(p.stat().st_size for p in segments[:3])
    downloader = YtDlpDownloader(
        max_filesize_bytes=CLOUD_LIMIT, max_download_bytes=cap, kill_grace_seconds=1.0
    )
    try:
        info = await scrape_one(downloader, video_server.url("/capped/master.m3u8"))
        result = await downloader.download(info, staging, timeout=60)
    finally:
        await downloader.shutdown()

    failure = result.failure()
    assert failure.too_large_bytes is not None
    assert failure.too_large_bytes > cap
    assert "passed the download cap" in failure.stderr_tail
    assert downloader.live_pids == []
    assert len(fetched(video_server, r"/capped/.*\.ts$")) < len(segments)


async def test_a_body_without_a_length_is_stopped_once_it_passes_the_cap(
    video_server: VideoServer, staging: Path
) -> None:
    body = bytes(range(256)) * 16_000  # 4 MB over 4 s, no Content-Length: only counting can stop it
    video_server.set_route("/endless.mp4", Trickle(body, seconds=4.0, chunks=40, announce_length=False))
    downloader = YtDlpDownloader(
        max_filesize_bytes=CLOUD_LIMIT, max_download_bytes=500_000, kill_grace_seconds=1.0
    )
    try:
        result = await downloader.download(direct_info(video_server, "/endless.mp4"), staging, timeout=30)
    finally:
        await downloader.shutdown()

    failure = result.failure()
    assert failure.too_large_bytes is not None
    assert 500_000 < failure.too_large_bytes < len(body)
    assert "passed the download cap" in failure.stderr_tail
    assert downloader.live_pids == []
