"""Hand-written ffprobe and ffmpeg for unit tests: probes scripted per file name, sizes read from the
real files, and a transcoder that writes a file of the size it is told to and records every plan
(and cuts a file into pieces of its bytes: equal shares, or the sizes it is told to)."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import replace
from pathlib import Path

from returns.result import Failure, Result, Success

from ports.media import MediaProbe, MediaProber, ToolFailure
from ports.transcoder import PercentSink, TranscodePlan, Transcoder

H264_AAC = MediaProbe(
    duration=20.0,
    width=320,
    height=240,
    video_codec="h264",
    pix_fmt="yuv420p",
    bit_depth=8,
    audio_codec="aac",
    container="mov,mp4,m4a,3gp,3g2,mj2",
)


class ScriptedProber(MediaProber):
    def __init__(self) -> None:
        self.probes: dict[str, MediaProbe] = {}
        self.probed: list[str] = []

    def script(self, name: str, probe: MediaProbe) -> None:
        self.probes[name] = probe

    async def probe(self, path: Path) -> MediaProbe | None:
        self.probed.append(path.name)
        probe = self.probes.get(path.name)
        size = _size_of(path)
        return None if probe is None or size is None else replace(probe, size=size)


class RecordingTranscoder(Transcoder):
    """Writes `output_sizes` bytes (one entry per call, the last repeats), probed as H.264/AAC."""

    def __init__(self, prober: ScriptedProber) -> None:
        self.prober = prober
        self.plans: list[TranscodePlan] = []
        self.output_sizes: deque[int] = deque([1000])
        self.failures: deque[ToolFailure] = deque()
        self.thumbnails: list[str] = []
        self.cuts: list[float] = []
        """Every split's part length, in seconds."""
        self.part_sizes: deque[list[int]] = deque()
        """Each split's part sizes, in turn; none left: the source's bytes shared evenly."""

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
        self.plans.append(plan)
        if self.failures:
            return Failure(self.failures.popleft())
        size = self.output_sizes.popleft() if len(self.output_sizes) > 1 else self.output_sizes[0]
        if on_progress is not None:
            on_progress(50.0)
            on_progress(100.0)
        _write(target, b"\0" * size)
        self.prober.script(target.name, replace(H264_AAC, duration=duration))
        return Success(target)

    async def split(
        self, source: Path, folder: Path, *, part_seconds: float, timeout: float
    ) -> Result[list[Path], ToolFailure]:
        self.cuts.append(part_seconds)
        if self.failures:
            return Failure(self.failures.popleft())
        probe = self.prober.probes.get(source.name)
        if probe is None:  # what ffprobe cannot read, ffmpeg cannot cut
            return Failure(ToolFailure("ERROR: ffmpeg could not cut the video into parts: Invalid data\n", 1))
        duration = probe.duration or 0.0
        count = max(math.ceil(duration / part_seconds - 1e-9), 1)
        data = source.read_bytes()  # noqa: ASYNC240 - small test files
        share = len(data) // count
        sizes = (
            self.part_sizes.popleft()
            if self.part_sizes
            else [share] * (count - 1) + [len(data) - share * (count - 1)]
        )
        parts, start = [], 0
        for index, part_size in enumerate(sizes):
            part = folder / f"part{index:03d}.mp4"
            _write(part, data[start : start + part_size].ljust(part_size, b"\0"))  # the source's own bytes
            start += part_size
            self.prober.script(part.name, replace(H264_AAC, duration=duration / len(sizes)))
            parts.append(part)
        return Success(parts)

    async def thumbnail(
        self, source: Path, target: Path, *, at_seconds: float, timeout: float
    ) -> Path | None:
        self.thumbnails.append(source.name)
        if _size_of(source) is None:
            return None
        _write(target, b"\xff\xd8\xff thumbnail")
        return target


def _size_of(path: Path) -> int | None:
    return path.stat().st_size if path.is_file() else None


def _write(path: Path, data: bytes) -> None:
    path.write_bytes(data)
