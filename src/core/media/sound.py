"""A video's sound as a blob of its own: one file per video, whatever quality a chat would get.

`sound_of(info)` is the entry with the format id AUDIO_FORMAT, so its blob key is
`extractor:id:~audio` (no format yt-dlp reports is named so): cached by file_id like any video,
never mistaken for one. `SoundFetcher` lets the blob service fetch it with the audio downloader.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from returns.result import Result

from ports.audio import AudioDownloader
from ports.media import OutputSink, ProgressSink, ToolFailure, VideoInfo

AUDIO_FORMAT = "~audio"


def sound_of(info: VideoInfo) -> VideoInfo:
    return replace(info, format_id=AUDIO_FORMAT, ext="m4a", has_video=False)


class SoundFetcher:
    def __init__(self, audio: AudioDownloader) -> None:
        self._audio = audio

    async def download(
        self,
        info: VideoInfo,
        staging: Path,
        *,
        timeout: float,
        verbose: bool = False,
        on_progress: ProgressSink | None = None,
        on_output: OutputSink | None = None,
    ) -> Result[Path, ToolFailure]:
        return await self._audio.download_audio(
            info, staging, timeout=timeout, verbose=verbose, on_progress=on_progress, on_output=on_output
        )
