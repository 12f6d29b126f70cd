"""Tiny H.264/AAC MP4 clips made by ffmpeg from its built-in test sources, cached in a folder.

The "long" clip is the long-video flow's fixture: 25 minutes of a black 64x48 picture at one
frame per second with silent audio is a real 25-minute MP4 of about 140 KB, so its duration is
true metadata (the scrape, ffprobe and the confirmation prompt all see 1500 s) without a big file.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import shutil
from collections.abc import Callable, Iterable
from dataclasses import astuple, dataclass
from pathlib import Path

_GENERATE_TIMEOUT_SECONDS = 120.0


@dataclass(frozen=True, slots=True)
class ClipSpec:
    name: str
    seconds: float
    width: int
    height: int
    fps: int
    video_source: str = "testsrc"
    """A lavfi source: `testsrc` (moving pattern) or a still one such as `color=c=black`."""
    tone: bool = True
    """A 440 Hz sine; False gives silence, which compresses to almost nothing."""

    @property
    def file_name(self) -> str:
        digest = hashlib.sha256(repr(astuple(self)).encode()).hexdigest()[:12]
        return f"{self.name}-{digest}.mp4"

    def ffmpeg_args(self, out: Path) -> list[str]:
        joint = ":" if "=" in self.video_source else "="
        video = f"{self.video_source}{joint}size={self.width}x{self.height}:rate={self.fps}"
        audio = "sine=frequency=440:sample_rate=22050" if self.tone else "anullsrc=r=8000:cl=mono"
        return [
            *("-nostdin", "-v", "error", "-y"),
            *("-f", "lavfi", "-i", video, "-f", "lavfi", "-i", audio),
            *("-t", f"{self.seconds:g}", "-map", "0:v", "-map", "1:a"),
            *("-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"),
            *("-c:a", "aac", "-b:a", "32k" if self.tone else "8k"),
            *("-movflags", "+faststart", "-f", "mp4", str(out)),
        ]


SHORT = ClipSpec("short", 2, 160, 120, 10)
"""A 2-second clip (~27 KB): the everyday download."""
MEDIUM = ClipSpec("medium", 8, 320, 240, 15)
"""An 8-second clip (a few hundred KB): enough bytes for progress to show several steps."""
LONG = ClipSpec("long", 1500, 64, 48, 1, video_source="color=c=black", tone=False)
"""25 minutes (~140 KB): for the long-video confirmation flow."""

DEFAULT_CLIPS: tuple[ClipSpec, ...] = (SHORT, MEDIUM, LONG)


async def ensure_clips(folder: Path, specs: Iterable[ClipSpec] = DEFAULT_CLIPS) -> dict[str, Path]:
    """Each clip's path, generating the missing ones; safe to run from several processes at once."""
    await asyncio.to_thread(folder.mkdir, parents=True, exist_ok=True)
    return {spec.name: await _ensure_clip(folder, spec) for spec in specs}


async def _ensure_clip(folder: Path, spec: ClipSpec) -> Path:
    return await ensure_made(folder, spec.file_name, spec.ffmpeg_args, f"clip {spec.name}")


async def ensure_made(
    folder: Path, file_name: str, ffmpeg_args: Callable[[Path], list[str]], what: str
) -> Path:
    """`folder/file_name`, made by ffmpeg with `ffmpeg_args(output)` unless it is there already."""
    target = folder / file_name
    if target.is_file():
        return target
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        raise RuntimeError("ffmpeg is not on PATH; the test media are made with it")
    # Written beside the target and renamed over it, so a reader never sees half a file. The
    # partial keeps the target's extension: ffmpeg picks the output format by it.
    partial = folder / f".{os.getpid()}.part.{file_name}"
    proc = await asyncio.create_subprocess_exec(
        ffmpeg,
        *ffmpeg_args(partial),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        _, err = await asyncio.wait_for(proc.communicate(), _GENERATE_TIMEOUT_SECONDS)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    if proc.returncode != 0:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
        raise RuntimeError(f"ffmpeg could not make {what}: {err.decode(errors='replace')}")
    partial.replace(target)
    return target
