"""The Transcoder port on ffmpeg: convert or compress a file into an MP4, cut one into parts, take
a thumbnail.

ffmpeg runs as a child process in its own session with a deadline; a timeout, a cancellation or
a shutdown kills its whole process group. Encodes are CPU-bound, so a semaphore lets only a few
run at once (the others wait for a slot, and their deadline starts when their process does). A
cut copies the streams: it takes no slot.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from returns.result import Failure, Result, Success

from adapters.ffmpeg.commands import split_args, transcode_args
from adapters.ffmpeg.progress import ProgressReader
from adapters.ffmpeg.thumbnail_command import thumbnail_args
from adapters.process import ChildProcesses, Exit
from ports.media import ToolFailure
from ports.transcoder import PercentSink, TranscodePlan, Transcoder

log = logging.getLogger(__name__)

DEFAULT_PRESET = "veryfast"
"""x264's speed/size trade: a few times faster than "medium" for ~15 % more bytes at one quality."""
DEFAULT_CRF = 23


def default_concurrency() -> int:
    return max(1, (os.cpu_count() or 1) // 2)


class FfmpegTranscoder(Transcoder):
    def __init__(
        self,
        ffmpeg: str = "ffmpeg",
        *,
        preset: str = DEFAULT_PRESET,
        crf: int = DEFAULT_CRF,
        concurrency: int | None = None,
        kill_grace_seconds: float = 2.0,
    ) -> None:
        self._ffmpeg = ffmpeg
        self._preset = preset
        self._crf = crf
        self._slots = asyncio.Semaphore(concurrency or default_concurrency())
        self._children = ChildProcesses(kill_grace_seconds)

    @property
    def live_pids(self) -> list[int]:
        return self._children.live_pids

    async def shutdown(self) -> None:
        """Kill the running ffmpeg processes; they and every later run fail as aborted."""
        await self._children.shutdown()

    async def transcode(
        self,
        source: Path,
        target: Path,
        plan: TranscodePlan,
        *,
        duration: float | None,
        timeout: float,
        on_progress: PercentSink | None = None,
    ) -> Result[Path, ToolFailure]:
        reader = ProgressReader(duration, _guarded(on_progress))
        args = transcode_args(source, target, plan, preset=self._preset, crf=self._crf, duration=duration)
        async with self._slots:
            outcome = await self._run(args, timeout, reader.line)
        if outcome.ok and await asyncio.to_thread(_non_empty, target):
            return Success(target)
        await asyncio.to_thread(target.unlink, missing_ok=True)
        return Failure(_failure(outcome, "ffmpeg could not convert the video"))

    async def split(
        self, source: Path, folder: Path, *, part_seconds: float, timeout: float
    ) -> Result[list[Path], ToolFailure]:
        outcome = await self._run(split_args(source, folder, part_seconds), timeout, lambda _: None)
        parts = await asyncio.to_thread(_parts_in, folder)
        if outcome.ok and parts:
            return Success(parts)
        for part in parts:
            await asyncio.to_thread(part.unlink, missing_ok=True)
        return Failure(_failure(outcome, "ffmpeg could not cut the video into parts"))

    async def thumbnail(
        self, source: Path, target: Path, *, at_seconds: float, timeout: float
    ) -> Path | None:
        # A frame past the end (a wrong duration) yields nothing: then the first frame.
        for at in dict.fromkeys((at_seconds, 0.0)):
            outcome = await self._run(thumbnail_args(source, target, at), timeout, lambda _: None)
            if outcome.ok and await asyncio.to_thread(_non_empty, target):
                return target
        log.info("no thumbnail could be taken from %s", source.name)
        return None

    async def _run(self, args: Sequence[str], timeout: float, on_stdout: Callable[[str], None]) -> Exit:
        return await self._children.run(
            (self._ffmpeg, *args), env=None, timeout=timeout, on_stdout=on_stdout, on_stderr=lambda _: None
        )


def _parts_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("part*.mp4") if _non_empty(p))


def _non_empty(path: Path) -> bool:
    return path.is_file() and path.stat().st_size > 0


def _guarded(sink: PercentSink | None) -> Callable[[float], None]:
    return sink if sink is not None else lambda _: None


def _failure(outcome: Exit, what: str) -> ToolFailure:
    last = next((line for line in reversed(outcome.stderr_tail.splitlines()) if line.strip()), "")
    reason = f"{what}: {last.strip()}" if last else what
    if outcome.timed_out_after is not None:
        reason = f"{what}: no result within {outcome.timed_out_after:.0f} s"
    return ToolFailure(
        stderr_tail=outcome.stderr_tail + f"ERROR: {reason}\n",
        exit_code=outcome.exit_code,
        signal=outcome.signal,
        timed_out_after=outcome.timed_out_after,
        aborted=outcome.aborted,
    )
