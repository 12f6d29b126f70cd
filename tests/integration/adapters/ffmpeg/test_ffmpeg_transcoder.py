"""FfmpegTranscoder with the real ffmpeg: sources in the codecs sites serve come out as H.264/AAC MP4,
a compression lands under its target, thumbnails are small JPEGs, and a hung ffmpeg is killed."""

from __future__ import annotations

import asyncio
import sys
import uuid
from pathlib import Path

import pytest

from adapters.ffmpeg import FfmpegTranscoder, FfprobeProber
from core.media.fit import fit_plan
from core.media.playback import playback_plan
from ports.media import MediaProbe
from ports.transcoder import StreamAction, TranscodePlan
from testkit.telegram.jpeg import jpeg_size
from tests.support.integration import CLIPS_DIR, wait_until
from tests.support.procs import pids_mentioning
from tests.support.sources import (
    H264_10BIT_MKV,
    H264_AAC,
    H264_AAC_MKV,
    H264_OPUS_MKV,
    HEVC_AAC,
    VP9_OPUS,
    Source,
    av1_source,
    make_source,
)

SOURCES_DIR = CLIPS_DIR / "sources"
AV1 = av1_source()


@pytest.fixture
async def transcoder() -> FfmpegTranscoder:
    return FfmpegTranscoder(concurrency=2)


async def probe(path: Path) -> MediaProbe:
    probed = await FfprobeProber().probe(path)
    assert probed is not None
    return probed


async def video_packets(path: Path) -> str:
    """The video stream's packets, hashed: equal only when not one frame was re-encoded."""
    proc = await asyncio.create_subprocess_exec(
        "ffmpeg",
        "-nostdin",
        "-v",
        "error",
        "-i",
        str(path),
        "-map",
        "0:v:0",
        "-c",
        "copy",
        "-f",
        "md5",
        "-",
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await proc.communicate()
    assert proc.returncode == 0
    return out.decode().strip()


def plays_everywhere(probed: MediaProbe) -> bool:
    return (
        probed.video_codec == "h264"
        and probed.pix_fmt == "yuv420p"
        and probed.audio_codec == "aac"
        and "mp4" in (probed.container or "")
    )


CONVERTED = [
    pytest.param(VP9_OPUS, id="vp9-opus-webm"),
    pytest.param(HEVC_AAC, id="hevc-mp4"),
    pytest.param(H264_10BIT_MKV, id="h264-10bit-mkv"),
    pytest.param(
        AV1, id="av1-mp4", marks=pytest.mark.skipif(AV1 is None, reason="this ffmpeg has no AV1 encoder")
    ),
]


@pytest.mark.parametrize("source", CONVERTED)
async def test_a_source_that_not_every_client_plays_becomes_h264_aac_mp4(
    source: Source, transcoder: FfmpegTranscoder, tmp_path: Path
) -> None:
    original = await make_source(SOURCES_DIR, source)
    before = await probe(original)
    plan = playback_plan(before)
    assert plan is not None
    assert plan.video is StreamAction.ENCODE
    percents: list[float] = []

    result = await transcoder.transcode(
        original,
        tmp_path / "out.mp4",
        plan,
        duration=before.duration,
        timeout=60,
        on_progress=percents.append,
    )

    after = await probe(result.unwrap())
    assert plays_everywhere(after), after
    assert after.duration == pytest.approx(before.duration, abs=0.2)
    assert (after.width, after.height) == (160, 120)
    assert percents[-1] == 100.0
    assert percents == sorted(percents)


async def test_right_streams_in_another_container_are_copied_not_encoded(
    transcoder: FfmpegTranscoder, tmp_path: Path
) -> None:
    original = await make_source(SOURCES_DIR, H264_AAC_MKV)
    before = await probe(original)
    plan = playback_plan(before)
    assert plan == TranscodePlan(StreamAction.COPY, StreamAction.COPY)

    out = await transcoder.transcode(original, tmp_path / "out.mp4", plan, duration=2.0, timeout=60)

    after = await probe(out.unwrap())
    assert plays_everywhere(after)
    assert await video_packets(out.unwrap()) == await video_packets(original)


async def test_an_h264_aac_mp4_needs_nothing(tmp_path: Path) -> None:
    assert playback_plan(await probe(await make_source(SOURCES_DIR, H264_AAC))) is None


async def test_only_the_wrong_audio_is_encoded(transcoder: FfmpegTranscoder, tmp_path: Path) -> None:
    original = await make_source(SOURCES_DIR, H264_OPUS_MKV)
    plan = playback_plan(await probe(original))
    assert plan == TranscodePlan(StreamAction.COPY, StreamAction.ENCODE)

    out = await transcoder.transcode(original, tmp_path / "out.mp4", plan, duration=2.0, timeout=60)

    assert plays_everywhere(await probe(out.unwrap()))


async def test_a_compression_lands_under_its_target_at_the_planned_height(
    transcoder: FfmpegTranscoder, tmp_path: Path
) -> None:
    source = Source(
        "h264-noise",
        "mp4",
        ("libx264", "-preset", "ultrafast", "-qp", "0"),
        ("aac",),
        seconds=3,
        size="640x480",
        noise=True,
    )
    original = await make_source(SOURCES_DIR, source)
    limit = original.stat().st_size // 2
    plan = fit_plan(3.0, limit, source_height=480, has_audio=True)
    assert plan is not None
    assert plan.video_kbps is not None

    out = await transcoder.transcode(original, tmp_path / "out.mp4", plan, duration=3.0, timeout=60)

    after = await probe(out.unwrap())
    assert out.unwrap().stat().st_size < limit
    assert plays_everywhere(after)
    assert after.duration == pytest.approx(3.0, abs=0.2)


async def test_a_height_cap_scales_down_to_even_sides(transcoder: FfmpegTranscoder, tmp_path: Path) -> None:
    original = await make_source(
        SOURCES_DIR,
        Source(
            "odd", "mp4", ("libx264", "-preset", "ultrafast"), ("aac",), size="321x241", pix_fmt="yuv444p"
        ),
    )
    plan = TranscodePlan(StreamAction.ENCODE, StreamAction.COPY, video_kbps=300, max_height=121)

    out = await transcoder.transcode(original, tmp_path / "out.mp4", plan, duration=2.0, timeout=60)

    after = await probe(out.unwrap())
    assert (after.width, after.height) == (160, 120)
    assert after.pix_fmt == "yuv420p"


async def test_a_file_that_is_not_media_fails_with_ffmpegs_reason(
    transcoder: FfmpegTranscoder, tmp_path: Path
) -> None:
    junk = tmp_path / "junk.webm"
    junk.write_bytes(b"<html>no video</html>")
    target = tmp_path / "out.mp4"

    failed = await transcoder.transcode(
        junk, target, TranscodePlan(StreamAction.ENCODE, StreamAction.ENCODE), duration=None, timeout=30
    )

    failure = failed.failure()
    assert "ERROR: ffmpeg could not convert the video" in failure.stderr_tail
    assert failure.exit_code not in (None, 0)
    assert not target.exists()


async def test_a_hostile_file_name_is_read_as_a_file(transcoder: FfmpegTranscoder, tmp_path: Path) -> None:
    original = await make_source(SOURCES_DIR, VP9_OPUS)
    odd = tmp_path / "-i http:x;$(rm -rf) 'é'.webm"
    odd.write_bytes(original.read_bytes())
    plan = playback_plan(await probe(odd))
    assert plan is not None

    out = await transcoder.transcode(odd, tmp_path / "-y out.mp4", plan, duration=2.0, timeout=60)

    assert plays_everywhere(await probe(out.unwrap()))


async def test_an_ffmpeg_that_hangs_is_killed_with_its_group_at_the_deadline(tmp_path: Path) -> None:
    marker = f"vidrelay-ffmpeg-hang-{uuid.uuid4().hex}"
    fake = tmp_path / marker
    # A grandchild in the same group must die too.
    fake.write_text(
        f"#!{sys.executable}\nimport subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', '{marker}'])\n"
        "time.sleep(60)\n"
    )
    fake.chmod(0o755)
    transcoder = FfmpegTranscoder(str(fake), kill_grace_seconds=0.5)

    failed = await transcoder.transcode(
        tmp_path / "in.webm",
        tmp_path / "out.mp4",
        TranscodePlan(StreamAction.ENCODE, StreamAction.ENCODE),
        duration=2.0,
        timeout=0.5,
    )

    assert failed.failure().timed_out_after == 0.5
    assert "no result within" in failed.failure().stderr_tail
    assert pids_mentioning(marker) == []


async def test_a_shutdown_aborts_a_running_conversion(tmp_path: Path) -> None:
    marker = f"vidrelay-ffmpeg-slow-{uuid.uuid4().hex}"
    fake = tmp_path / marker
    fake.write_text(
        f"#!{sys.executable}\nimport time\nprint('progress=continue', flush=True)\ntime.sleep(60)\n"
    )
    fake.chmod(0o755)
    transcoder = FfmpegTranscoder(str(fake), kill_grace_seconds=0.5)
    started: list[float] = []

    run = asyncio.create_task(
        transcoder.transcode(
            tmp_path / "in.webm",
            tmp_path / "out.mp4",
            TranscodePlan(StreamAction.ENCODE, StreamAction.ENCODE),
            duration=None,
            timeout=60,
            on_progress=started.append,
        )
    )
    await wait_until(lambda: bool(transcoder.live_pids))
    await transcoder.shutdown()

    assert (await run).failure().aborted
    assert pids_mentioning(marker) == []


async def test_a_thumbnail_is_a_small_jpeg_of_at_most_320_px(
    transcoder: FfmpegTranscoder, tmp_path: Path
) -> None:
    original = await make_source(
        SOURCES_DIR, Source("wide", "mp4", ("libx264", "-preset", "ultrafast"), ("aac",), size="640x360")
    )

    thumb = await transcoder.thumbnail(original, tmp_path / "thumb.jpg", at_seconds=1.0, timeout=30)

    assert thumb is not None
    assert jpeg_size(thumb.read_bytes()[:65536]) == (320, 180)  # what the fake Bot API checks
    assert thumb.stat().st_size < 200_000
    probed = await probe(thumb)
    assert (probed.width, probed.height) == (320, 180)


async def test_a_thumbnail_past_the_end_falls_back_to_the_first_frame(
    transcoder: FfmpegTranscoder, tmp_path: Path
) -> None:
    original = await make_source(SOURCES_DIR, H264_AAC)
    thumb = await transcoder.thumbnail(original, tmp_path / "t.jpg", at_seconds=999.0, timeout=30)
    assert thumb is not None
    assert (await probe(thumb)).width == 160


async def test_no_thumbnail_from_a_file_without_a_picture(
    transcoder: FfmpegTranscoder, tmp_path: Path
) -> None:
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"nothing")
    assert await transcoder.thumbnail(junk, tmp_path / "t.jpg", at_seconds=1.0, timeout=30) is None
