"""Re-encoding a downloaded file so that every client plays it, or so that it fits a limit; cutting
one that cannot fit into parts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Protocol

from returns.result import Result

from ports.media import ToolFailure


class StreamAction(Enum):
    COPY = "copy"
    """Keep the stream's bytes, only put them into the new container."""
    ENCODE = "encode"
    DROP = "drop"
    """There is no such stream (a silent video)."""


@dataclass(frozen=True, slots=True)
class TranscodePlan:
    """What to do with each stream; the output is always an MP4 with its index up front."""

    video: StreamAction
    audio: StreamAction
    video_kbps: int | None = None
    """A bitrate to hold the video to (compress to fit); None: a constant quality."""
    audio_kbps: int = 128
    max_height: int | None = None
    """Scale the picture down to at most this height; None: keep it."""

    @property
    def reencodes(self) -> bool:
        return StreamAction.ENCODE in (self.video, self.audio)


PercentSink = Callable[[float], None]


class Transcoder(Protocol):
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
        """Write `target` from `source` as `plan` says; `duration` turns time done into percent."""
        ...

    async def split(
        self, source: Path, folder: Path, *, part_seconds: float, timeout: float
    ) -> Result[list[Path], ToolFailure]:
        """`source` cut at keyframes into MP4 parts of about `part_seconds` each (each part starts
        on a keyframe, its streams copied, not re-encoded), written into `folder`; in order."""
        ...

    async def thumbnail(
        self, source: Path, target: Path, *, at_seconds: float, timeout: float
    ) -> Path | None:
        """A JPEG preview (at most 320 px a side) of the frame at `at_seconds`; None when none could
        be taken."""
        ...
