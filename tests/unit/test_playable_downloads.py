"""PlayableDownloads over a scripted yt-dlp, ffprobe and ffmpeg: what is converted, remuxed, compressed
or refused, and what progress the chat hears."""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from pathlib import Path

import pytest
from returns.result import Failure, Success

from core.media.playable import PlayableDownloads
from ports.media import Progress, Stage, ToolFailure
from ports.transcoder import StreamAction
from tests.support.downloader import ScriptedDownloader, http_error, video
from tests.support.media import H264_AAC, RecordingTranscoder, ScriptedProber

LIMIT = 50_000


@pytest.fixture
def prober() -> ScriptedProber:
    return ScriptedProber()


@pytest.fixture
def transcoder(prober: ScriptedProber) -> RecordingTranscoder:
    return RecordingTranscoder(prober)


@pytest.fixture
def inner() -> ScriptedDownloader:
    return ScriptedDownloader()


@pytest.fixture
def playable(
    inner: ScriptedDownloader, prober: ScriptedProber, transcoder: RecordingTranscoder
) -> PlayableDownloads:
    return PlayableDownloads(inner, prober, transcoder, upload_limit_bytes=LIMIT, transcode_timeout=60.0)


async def download(
    playable: PlayableDownloads,
    inner: ScriptedDownloader,
    prober: ScriptedProber,
    tmp_path: Path,
    size: int,
    **probe: object,
) -> tuple[object, list[Progress]]:
    info = video("https://site.test/v", vid="v1")
    inner.content["v1"] = b"x" * size
    prober.script("v1.mp4", replace(H264_AAC, **probe))  # type: ignore[arg-type]
    seen: list[Progress] = []
    result = await playable.download(info, tmp_path, timeout=60, on_progress=seen.append)
    return result, seen


async def test_an_h264_aac_mp4_under_the_limit_is_the_download_itself(
    playable: PlayableDownloads,
    inner: ScriptedDownloader,
    prober: ScriptedProber,
    transcoder: RecordingTranscoder,
    tmp_path: Path,
) -> None:
    result, seen = await download(playable, inner, prober, tmp_path, 1000)
    assert result == Success(tmp_path / "v1.mp4")
    assert transcoder.plans == []
    assert [p.stage for p in seen] == [Stage.DOWNLOAD]


async def test_a_vp9_download_is_converted_with_progress_in_the_staging_folder(
    playable: PlayableDownloads,
    inner: ScriptedDownloader,
    prober: ScriptedProber,
    transcoder: RecordingTranscoder,
    tmp_path: Path,
) -> None:
    result, seen = await download(
        playable, inner, prober, tmp_path, 1000, video_codec="vp9", audio_codec="opus"
    )
    assert result == Success(tmp_path / "v1.playable.mp4")
    [plan] = transcoder.plans
    assert (plan.video, plan.audio, plan.video_kbps) == (StreamAction.ENCODE, StreamAction.ENCODE, None)
    assert [(p.stage, p.percent) for p in seen[1:]] == [
        (Stage.CONVERT, 0.0),
        (Stage.CONVERT, 50.0),
        (Stage.CONVERT, 100.0),
    ]


async def test_a_remux_says_nothing(
    playable: PlayableDownloads,
    inner: ScriptedDownloader,
    prober: ScriptedProber,
    transcoder: RecordingTranscoder,
    tmp_path: Path,
) -> None:
    result, seen = await download(playable, inner, prober, tmp_path, 1000, container="matroska,webm")
    assert isinstance(result, Success)
    assert not transcoder.plans[0].reencodes
    assert [p.stage for p in seen] == [Stage.DOWNLOAD]


async def test_over_the_limit_it_is_compressed_to_fit_even_when_its_codecs_are_right(
    playable: PlayableDownloads,
    inner: ScriptedDownloader,
    prober: ScriptedProber,
    transcoder: RecordingTranscoder,
    tmp_path: Path,
) -> None:
    transcoder.output_sizes.append(LIMIT - 1)
    transcoder.output_sizes.popleft()
    result, seen = await download(playable, inner, prober, tmp_path, 2 * LIMIT, duration=1.0)
    assert result == Success(tmp_path / "v1.playable.mp4")
    [plan] = transcoder.plans
    assert plan.video_kbps is not None
    assert plan.video_kbps >= 250
    assert {p.stage for p in seen[1:]} == {Stage.COMPRESS}


async def test_a_pass_that_comes_out_over_the_limit_is_followed_by_a_tighter_one(
    playable: PlayableDownloads,
    inner: ScriptedDownloader,
    prober: ScriptedProber,
    transcoder: RecordingTranscoder,
    tmp_path: Path,
) -> None:
    transcoder.output_sizes = deque([LIMIT + 5000, LIMIT - 5000])
    result, _ = await download(playable, inner, prober, tmp_path, 2 * LIMIT, duration=0.5)
    assert isinstance(result, Success)
    first, second = transcoder.plans
    assert (second.video_kbps or 0) < (first.video_kbps or 0)


async def test_two_passes_over_the_limit_make_it_too_large(
    playable: PlayableDownloads,
    inner: ScriptedDownloader,
    prober: ScriptedProber,
    transcoder: RecordingTranscoder,
    tmp_path: Path,
) -> None:
    transcoder.output_sizes[0] = LIMIT + 1
    result, _ = await download(playable, inner, prober, tmp_path, 2 * LIMIT, duration=1.0)
    assert isinstance(result, Failure)
    assert result.failure().too_large_bytes == 2 * LIMIT
    assert len(transcoder.plans) == 2


async def test_a_video_too_long_for_a_watchable_bitrate_is_too_large_without_encoding(
    playable: PlayableDownloads,
    inner: ScriptedDownloader,
    prober: ScriptedProber,
    transcoder: RecordingTranscoder,
    tmp_path: Path,
) -> None:
    # 50 KB over 10 minutes: well under 250 kbps.
    result, _ = await download(playable, inner, prober, tmp_path, 2 * LIMIT, duration=600.0)
    assert isinstance(result, Failure)
    assert result.failure().too_large_bytes == 2 * LIMIT
    assert "watchable" in result.failure().stderr_tail
    assert transcoder.plans == []


async def test_a_file_ffprobe_cannot_read_is_passed_on(
    playable: PlayableDownloads, inner: ScriptedDownloader, transcoder: RecordingTranscoder, tmp_path: Path
) -> None:
    inner.content["v1"] = b"junk"
    result = await playable.download(video("https://site.test/v", vid="v1"), tmp_path, timeout=60)
    assert result == Success(tmp_path / "v1.mp4")
    assert transcoder.plans == []


async def test_a_failed_conversion_is_the_downloads_failure(
    playable: PlayableDownloads,
    inner: ScriptedDownloader,
    prober: ScriptedProber,
    transcoder: RecordingTranscoder,
    tmp_path: Path,
) -> None:
    broken = ToolFailure("ERROR: ffmpeg could not convert the video: Invalid data\n", exit_code=1)
    transcoder.failures.append(broken)
    result, _ = await download(playable, inner, prober, tmp_path, 1000, video_codec="hevc")
    assert result == Failure(broken)


async def test_a_failed_download_is_passed_on_untouched(
    playable: PlayableDownloads, inner: ScriptedDownloader, transcoder: RecordingTranscoder, tmp_path: Path
) -> None:
    inner.download_failures["v1"].append(http_error(503, "video"))
    result = await playable.download(video("https://site.test/v", vid="v1"), tmp_path, timeout=60)
    assert result == Failure(http_error(503, "video"))
    assert transcoder.plans == []
