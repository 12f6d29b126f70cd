"""FfprobeProber with the real ffprobe on the served clips, and with a fake that never answers."""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
import uuid
from pathlib import Path

import pytest

from adapters.ffmpeg import FfprobeProber
from adapters.ffmpeg.prober import parse_probe
from ports.media import MediaProbe
from testkit.clips import ensure_clips
from tests.support.integration import CLIPS_DIR, wait_until
from tests.support.procs import pids_mentioning


@pytest.fixture
async def clips() -> dict[str, Path]:
    return await ensure_clips(CLIPS_DIR)


async def test_the_short_clip(clips: dict[str, Path]) -> None:
    probe = await FfprobeProber().probe(clips["short"])
    assert probe == MediaProbe(
        duration=pytest.approx(2.0, abs=0.1),
        width=160,
        height=120,
        video_codec="h264",
        pix_fmt="yuv420p",
        bit_depth=8,
        audio_codec="aac",
        container="mov,mp4,m4a,3gp,3g2,mj2",
        size=clips["short"].stat().st_size,
    )


async def test_the_long_clip_is_25_minutes(clips: dict[str, Path]) -> None:
    probe = await FfprobeProber().probe(clips["long"])
    assert probe is not None
    assert probe.duration == pytest.approx(1500, abs=1)
    assert (probe.width, probe.height) == (64, 48)


async def test_a_hostile_file_name_is_read_as_a_file(clips: dict[str, Path], tmp_path: Path) -> None:
    odd = tmp_path / "-i http:x;$(rm -rf) 'é'.mp4"
    shutil.copy(clips["short"], odd)
    probe = await FfprobeProber().probe(odd)
    assert probe is not None
    assert (probe.width, probe.height) == (160, 120)


async def test_a_file_that_is_not_media_gives_none(tmp_path: Path) -> None:
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"<html>not a video</html>")
    assert await FfprobeProber().probe(junk) is None
    assert await FfprobeProber().probe(tmp_path / "missing.mp4") is None


async def test_a_missing_ffprobe_gives_none(clips: dict[str, Path]) -> None:
    assert await FfprobeProber("/nonexistent/ffprobe").probe(clips["short"]) is None


async def test_an_ffprobe_that_hangs_is_killed_at_the_deadline(
    clips: dict[str, Path], tmp_path: Path
) -> None:
    marker = f"vidrelay-hang-{uuid.uuid4().hex}"
    fake = tmp_path / marker
    fake.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(30)\n")
    fake.chmod(0o755)
    started = time.monotonic()

    assert await FfprobeProber(str(fake), timeout_seconds=0.5).probe(clips["short"]) is None

    assert time.monotonic() - started < 5
    assert pids_mentioning(marker) == []


async def test_a_hung_ffprobe_loses_its_whole_process_group(clips: dict[str, Path], tmp_path: Path) -> None:
    marker = f"vidrelay-hang-{uuid.uuid4().hex}"
    fake = tmp_path / marker
    fake.write_text(
        f"#!{sys.executable}\n"
        "import signal, subprocess, sys, time\n"
        "grandchild = 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)'\n"
        # Off our pipes: only the group kill can reach it, nothing waits for it to close them.
        "quiet = subprocess.DEVNULL\n"
        "subprocess.Popen([sys.executable, '-c', grandchild, sys.argv[0]], stdout=quiet, stderr=quiet)\n"
        "time.sleep(60)\n"
    )
    fake.chmod(0o755)

    prober = FfprobeProber(str(fake), timeout_seconds=1.0, kill_grace_seconds=0.5)
    assert await prober.probe(clips["short"]) is None

    # SIGKILLed, the grandchild still takes a moment to die; nothing of ours waits for it.
    await wait_until(lambda: pids_mentioning(marker) == [], timeout=10.0)


async def test_the_hang_check_sees_a_live_fake(tmp_path: Path) -> None:
    """The process-table check above can fail: a running fake is found by its marker."""
    marker = f"vidrelay-hang-{uuid.uuid4().hex}"
    fake = tmp_path / marker
    fake.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(30)\n")
    fake.chmod(0o755)
    proc = await asyncio.create_subprocess_exec(str(fake))
    try:
        assert pids_mentioning(marker) == [proc.pid]
    finally:
        proc.kill()
        await proc.wait()
    assert pids_mentioning(marker) == []


@pytest.mark.parametrize(
    "stdout",
    ["", "not json", "[]", '{"streams": "x", "format": 3}', '{"format": {"duration": "nan"}}'],
)
def test_odd_ffprobe_output_never_raises(stdout: str) -> None:
    probe = parse_probe(stdout)
    assert probe is None or probe == MediaProbe(None, None, None)


def test_an_audio_only_file_has_a_duration_but_no_size() -> None:
    out = '{"streams": [{"codec_type": "audio"}], "format": {"duration": "3.5"}}'
    assert parse_probe(out) == MediaProbe(duration=3.5, width=None, height=None)


def test_a_ten_bit_stream_has_its_depth_from_the_pixel_format() -> None:
    out = b'{"streams": [{"codec_type": "video", "codec_name": "hevc", "pix_fmt": "yuv420p10le"}]}'
    probe = parse_probe(out)
    assert probe is not None
    assert (probe.video_codec, probe.bit_depth, probe.audio_codec) == ("hevc", 10, None)


def test_a_cover_picture_is_not_the_video() -> None:
    out = (
        b'{"streams": [{"codec_type": "audio", "codec_name": "mp3"},'
        b' {"codec_type": "video", "codec_name": "mjpeg", "disposition": {"attached_pic": 1}}]}'
    )
    probe = parse_probe(out)
    assert probe is not None
    assert (probe.video_codec, probe.audio_codec) == (None, "mp3")
