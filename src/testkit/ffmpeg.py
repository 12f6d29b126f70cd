"""ffmpeg as the testkit runs it to make its media: found on PATH, bounded in time, killed when it
overruns, its own words in the error when it fails."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Sequence

_TIMEOUT_SECONDS = 120.0


async def run_ffmpeg(args: Sequence[str], what: str) -> None:
    """Run ffmpeg with `args`; RuntimeError "ffmpeg could not {what}: ..." when it fails."""
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is None:
        raise RuntimeError("ffmpeg is not on PATH; the test media are made with it")
    proc = await asyncio.create_subprocess_exec(
        ffmpeg, *args, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
    )
    try:
        _, err = await asyncio.wait_for(proc.communicate(), _TIMEOUT_SECONDS)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    if proc.returncode != 0:
        raise RuntimeError(f"ffmpeg could not {what}: {err.decode(errors='replace')}")
