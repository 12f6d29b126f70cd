"""PlayableDownloads over a scripted yt-dlp, ffprobe and ffmpeg: what is converted, remuxed, compressed,
left whole to be cut into parts, or refused, and what progress the chat hears."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from returns.result import Failure, Result, Success

from core.media.playable import PlayableDownloads
from ports.media import Progress, Stage, ToolFailure
from ports.transcoder import StreamAction
from tests.support.downloader import ScriptedDownloader, http_error, video
from tests.support.media import H264_AAC, RecordingTranscoder, ScriptedProber

LIMIT = 50_000
INFO = video("https://site.test/v", vid="v1")


@dataclass
class Rig:
    staging: Path
    inner: ScriptedDownloader = field(default_factory=ScriptedDownloader)
    prober: ScriptedProber = field(default_factory=ScriptedProber)
    seen: list[Progress] = field(default_factory=list)
    max_parts: int = 1

    def __post_init__(self) -> None:
        self.transcoder = RecordingTranscoder(self.prober)
        self.playable = PlayableDownloads(
            self.inner,
            self.prober,
            self.transcoder,
            upload_limit_bytes=LIMIT,
            max_parts=self.max_parts,
            transcode_timeout=60.0,
        )

    async def download(self, size: int, **probe: object) -> Result[Path, ToolFailure]:
        """yt-dlp produces `size` bytes that ffprobe describes as H.264/AAC MP4 but for `probe`."""
        self.inner.content["v1"] = b"x" * size
        self.prober.script("v1.mp4", replace(H264_AAC, **probe))  # type: ignore[arg-type]
        return await self.playable.download(INFO, self.staging, timeout=60, on_progress=self.seen.append)

    @property
    def stages(self) -> list[Stage]:
        return [p.stage for p in self.seen]


@pytest.fixture
def rig(tmp_path: Path) -> Rig:
    return Rig(tmp_path)


async def test_an_h264_aac_mp4_under_the_limit_is_the_download_itself(rig: Rig) -> None:
    assert await rig.download(1000) == Success(rig.staging / "v1.mp4")
    assert rig.transcoder.plans == []
    assert rig.stages == [Stage.DOWNLOAD]


async def test_a_vp9_download_is_converted_with_progress_in_the_staging_folder(rig: Rig) -> None:
    result = await rig.download(1000, video_codec="vp9", audio_codec="opus")
    assert result == Success(rig.staging / "v1.playable.mp4")
    [plan] = rig.transcoder.plans
    assert (plan.video, plan.audio, plan.video_kbps) == (StreamAction.ENCODE, StreamAction.ENCODE, None)
    assert [(p.stage, p.percent) for p in rig.seen[1:]] == [
        (Stage.CONVERT, 0.0),
        (Stage.CONVERT, 50.0),
        (Stage.CONVERT, 100.0),
    ]


async def test_a_remux_says_nothing(rig: Rig) -> None:
    assert isinstance(await rig.download(1000, container="matroska,webm"), Success)
    assert not rig.transcoder.plans[0].reencodes
    assert rig.stages == [Stage.DOWNLOAD]


async def test_over_the_limit_it_is_compressed_to_fit_even_when_its_codecs_are_right(rig: Rig) -> None:
    rig.transcoder.output_sizes = deque([LIMIT - 1])
    result = await rig.download(2 * LIMIT, duration=1.0)
    assert result == Success(rig.staging / "v1.playable.mp4")
    [plan] = rig.transcoder.plans
    assert plan.video_kbps is not None
    assert plan.video_kbps >= 250
    assert set(rig.stages[1:]) == {Stage.COMPRESS}


async def test_a_pass_that_comes_out_over_the_limit_is_followed_by_a_tighter_one(rig: Rig) -> None:
    rig.transcoder.output_sizes = deque([LIMIT + 5000, LIMIT - 5000])
    assert isinstance(await rig.download(2 * LIMIT, duration=0.5), Success)
    first, second = rig.transcoder.plans
    assert (second.video_kbps or 0) < (first.video_kbps or 0)


async def test_two_passes_over_the_limit_make_it_too_large(rig: Rig) -> None:
    rig.transcoder.output_sizes = deque([LIMIT + 1])
    result = await rig.download(2 * LIMIT, duration=1.0)
    assert isinstance(result, Failure)
    assert result.failure().too_large_bytes == 2 * LIMIT
    assert len(rig.transcoder.plans) == 2


async def test_a_video_too_long_for_a_watchable_bitrate_is_too_large_without_encoding(rig: Rig) -> None:
    # 50 KB over 10 minutes: well under 250 kbps.
    result = await rig.download(2 * LIMIT, duration=600.0)
    assert isinstance(result, Failure)
    assert result.failure().too_large_bytes == 2 * LIMIT
    assert "watchable" in result.failure().stderr_tail
    assert rig.transcoder.plans == []


# Too long for a watchable bitrate, with parts allowed ---------------------------------------


@pytest.fixture
def parts(tmp_path: Path) -> Rig:
    return Rig(tmp_path, max_parts=3)


async def test_a_playable_video_no_bitrate_fits_is_left_whole_as_downloaded(parts: Rig) -> None:
    result = await parts.download(2 * LIMIT, duration=600.0)

    assert result == Success(parts.staging / "v1.mp4")
    assert parts.transcoder.plans == []


async def test_a_video_to_cut_is_converted_whole_first_when_not_every_client_plays_it(parts: Rig) -> None:
    result = await parts.download(2 * LIMIT, duration=600.0, video_codec="vp9", audio_codec="opus")

    assert result == Success(parts.staging / "v1.playable.mp4")
    [plan] = parts.transcoder.plans
    assert (plan.video, plan.video_kbps) == (StreamAction.ENCODE, None)  # its quality, not a bitrate
    assert Stage.COMPRESS not in parts.stages


async def test_two_passes_over_the_limit_leave_the_original_whole_to_be_cut(parts: Rig) -> None:
    parts.transcoder.output_sizes = deque([LIMIT + 1])
    assert await parts.download(2 * LIMIT, duration=1.0) == Success(parts.staging / "v1.mp4")
    assert len(parts.transcoder.plans) == 2


async def test_a_video_that_would_take_more_parts_than_allowed_is_too_large(parts: Rig) -> None:
    result = await parts.download(3 * LIMIT, duration=600.0)  # 4 parts of 45 KB

    assert isinstance(result, Failure)
    assert result.failure().too_large_bytes == 3 * LIMIT
    assert parts.transcoder.plans == []


async def test_a_file_ffprobe_cannot_read_is_passed_on(rig: Rig) -> None:
    rig.inner.content["v1"] = b"junk"
    assert await rig.playable.download(INFO, rig.staging, timeout=60) == Success(rig.staging / "v1.mp4")
    assert rig.transcoder.plans == []


async def test_a_failed_conversion_is_the_downloads_failure(rig: Rig) -> None:
    broken = ToolFailure("ERROR: ffmpeg could not convert the video: Invalid data\n", exit_code=1)
    rig.transcoder.failures.append(broken)
    assert await rig.download(1000, video_codec="hevc") == Failure(broken)


async def test_a_failed_download_is_passed_on_untouched(rig: Rig) -> None:
    rig.inner.download_failures["v1"].append(http_error(503, "video"))
    assert await rig.playable.download(INFO, rig.staging, timeout=60) == Failure(http_error(503, "video"))
    assert rig.transcoder.plans == []


async def test_a_file_without_a_picture_is_never_encoded_as_a_video(rig: Rig) -> None:
    result = await rig.download(2 * LIMIT, video_codec=None, audio_codec="opus", container="ogg")
    assert result == Success(rig.staging / "v1.mp4")
    assert rig.transcoder.plans == []
