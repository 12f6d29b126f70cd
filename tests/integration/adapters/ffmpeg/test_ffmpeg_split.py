"""FfmpegTranscoder.split with the real ffmpeg: a video cut at keyframes into parts that each play
on their own, with every frame copied (not one re-encoded) and no second lost or added."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from adapters.ffmpeg import FfmpegTranscoder, FfprobeProber
from ports.media import MediaProbe
from tests.support.integration import CLIPS_DIR
from tests.support.sources import Source, make_source

SOURCES_DIR = CLIPS_DIR / "sources"
# 30 s with a keyframe every 2 s, the way a site's long upload is cut into segments
GOP_2S = Source(
    "h264-aac-gop2",
    "mp4",
    ("libx264", "-preset", "ultrafast", "-g", "20", "-keyint_min", "20"),
    ("aac", "-movflags", "+faststart"),
    seconds=30,
)
SILENT = Source(
    "h264-silent", "mp4", ("libx264", "-preset", "ultrafast", "-g", "20", "-an"), ("aac",), seconds=12
)


async def probe(path: Path) -> MediaProbe:
    probed = await FfprobeProber().probe(path)
    assert probed is not None
    return probed


async def frames(path: Path) -> int:
    """How many video frames the file holds, counted from its packets."""
    proc = await asyncio.create_subprocess_exec(
        *("ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets"),
        *("-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", str(path)),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await proc.communicate()
    return int(out.decode().strip())


async def test_a_video_is_cut_into_playable_parts_that_add_up_to_it(tmp_path: Path) -> None:
    source = await make_source(SOURCES_DIR, GOP_2S)

    cut = await FfmpegTranscoder().split(source, tmp_path, part_seconds=10.1, timeout=60)

    parts = cut.unwrap()
    assert [p.name for p in parts] == ["part000.mp4", "part001.mp4", "part002.mp4"]
    probes = [await probe(p) for p in parts]
    assert all((p.video_codec, p.audio_codec) == ("h264", "aac") for p in probes)
    assert all("mp4" in (p.container or "") for p in probes)
    assert sum(p.duration or 0 for p in probes) == pytest.approx(30.0, abs=0.5)
    assert sum([await frames(p) for p in parts]) == await frames(source)  # every frame, copied once


async def test_a_silent_video_is_cut_too(tmp_path: Path) -> None:
    source = await make_source(SOURCES_DIR, SILENT)

    parts = (await FfmpegTranscoder().split(source, tmp_path, part_seconds=6.1, timeout=60)).unwrap()

    assert len(parts) == 2
    assert [(await probe(p)).audio_codec for p in parts] == [None, None]


async def test_a_file_that_is_not_media_fails_with_ffmpegs_reason_and_leaves_no_part(tmp_path: Path) -> None:
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video at all" * 100)
    folder = tmp_path / "parts"
    folder.mkdir()

    failed = await FfmpegTranscoder().split(junk, folder, part_seconds=5, timeout=60)

    assert "ffmpeg could not cut the video into parts" in failed.failure().stderr_tail
    assert list(folder.iterdir()) == []
