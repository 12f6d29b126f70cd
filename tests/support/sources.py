"""Tiny video sources in the codecs real sites serve, made by ffmpeg for the tests that convert them.

Each is 2 seconds of 160x120 test pattern with a tone, made with the fastest settings of its encoder,
and cached by a hash of its command line, so a run makes each one once.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Source:
    name: str
    ext: str
    video: tuple[str, ...]
    audio: tuple[str, ...]
    seconds: float = 2.0
    size: str = "160x120"
    pix_fmt: str = "yuv420p"
    noise: bool = False
    """Random pixels instead of the test pattern: as many bytes as the encoder is asked to spend."""
    rate: int = 10

    def args(self, out: Path) -> list[str]:
        picture = (
            f"nullsrc=size={self.size}:rate={self.rate},geq=random(1)*255:128:128"
            if self.noise
            else f"testsrc=size={self.size}:rate={self.rate}"
        )
        return [
            *("-nostdin", "-v", "error", "-y"),
            *("-f", "lavfi", "-i", picture),
            *("-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"),
            *("-t", f"{self.seconds:g}", "-pix_fmt", self.pix_fmt),
            *("-c:v", *self.video, "-c:a", *self.audio),
            str(out),
        ]


VP9_OPUS = Source("vp9-opus", "webm", ("libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8"), ("libopus",))
HEVC_AAC = Source(
    "hevc-aac", "mp4", ("libx265", "-preset", "ultrafast", "-x265-params", "log-level=error"), ("aac",)
)
H264_AAC = Source("h264-aac", "mp4", ("libx264", "-preset", "ultrafast"), ("aac", "-movflags", "+faststart"))
H264_10BIT_MKV = Source(
    "h264-10bit", "mkv", ("libx264", "-preset", "ultrafast"), ("aac",), pix_fmt="yuv420p10le"
)
H264_OPUS_MKV = Source("h264-opus", "mkv", ("libx264", "-preset", "ultrafast"), ("libopus",))
H264_AAC_MKV = Source("h264-aac-mkv", "mkv", ("libx264", "-preset", "ultrafast"), ("aac",))
_AV1_ENCODERS = {
    "libsvtav1": ("libsvtav1", "-preset", "12", "-svtav1-params", "lp=1"),
    "libaom-av1": ("libaom-av1", "-cpu-used", "8", "-row-mt", "1"),
}


@cache
def ffmpeg_encoders() -> frozenset[str]:
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        return frozenset()
    out = subprocess.run([ffmpeg, "-hide_banner", "-encoders"], capture_output=True, text=True, check=False)
    return frozenset(line.split()[1] for line in out.stdout.splitlines() if len(line.split()) > 1)


def av1_source() -> Source | None:
    """AV1 in MP4 with the first AV1 encoder this ffmpeg has; None when it has none."""
    encoder = next((name for name in _AV1_ENCODERS if name in ffmpeg_encoders()), None)
    if encoder is None:
        return None
    return Source("av1-aac", "mp4", _AV1_ENCODERS[encoder], ("aac",))


async def make_source(folder: Path, source: Source) -> Path:
    digest = hashlib.sha256(repr(source.args(Path("out"))).encode()).hexdigest()[:12]
    target = folder / f"{source.name}-{digest}.{source.ext}"
    if await asyncio.to_thread(target.is_file):
        return target
    await asyncio.to_thread(folder.mkdir, parents=True, exist_ok=True)
    partial = folder / f".{target.stem}.{os.getpid()}.part.{source.ext}"
    proc = await asyncio.create_subprocess_exec(
        "ffmpeg", *source.args(partial), stderr=asyncio.subprocess.PIPE
    )
    _, err = await asyncio.wait_for(proc.communicate(), 120)
    if proc.returncode != 0:
        raise RuntimeError(f"ffmpeg could not make {source.name}: {err.decode(errors='replace')}")
    partial.replace(target)
    return target
