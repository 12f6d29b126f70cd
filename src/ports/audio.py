"""The sound of a video alone: what `/audio` and a chat's audio-only choice send."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from returns.result import Result

from ports.media import OutputSink, ProgressSink, ToolFailure, VideoInfo


class AudioDownloader(Protocol):
    async def download_audio(
        self,
        info: VideoInfo,
        staging: Path,
        *,
        timeout: float,
        verbose: bool = False,
        on_progress: ProgressSink | None = None,
        on_output: OutputSink | None = None,
    ) -> Result[Path, ToolFailure]:
        """The best sound of `info` as one M4A (AAC) file in the empty folder `staging`, with the
        site's title and performer tagged and its picture embedded as the cover when it has one.
        A run that fails, for whatever reason, is a `Failure(ToolFailure)`."""
        ...
