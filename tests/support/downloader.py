"""A hand-written Downloader for unit tests: scripted scrapes and downloads (videos and sounds)
that write real files."""

from __future__ import annotations

import json
from collections import defaultdict, deque
from pathlib import Path

from returns.result import Failure, Result, Success

from ports.audio import AudioDownloader
from ports.clock import Clock
from ports.media import Downloader, OutputSink, Progress, ProgressSink, ToolFailure, VideoInfo


def video(url: str, vid: str = "v1", **overrides: object) -> VideoInfo:
    fields: dict[str, object] = {
        "url": url,
        "webpage_url": url,
        "extractor": "testsite",
        "id": vid,
        "title": f"Clip {vid}",
        "format_id": "18",
        "ext": "mp4",
        "info_json": json.dumps({"id": vid}),
        "duration": 12.0,
        "filesize": 1000,
        "width": 640,
        "height": 360,
        "vcodec": "avc1",
        "acodec": "mp4a.40.2",
    }
    fields.update(overrides)
    return VideoInfo(**fields)  # type: ignore[arg-type]


def http_error(code: int, what: str = "webpage") -> ToolFailure:
    return ToolFailure(f"ERROR: [generic] Unable to download {what}: HTTP Error {code}: Oops\n", exit_code=1)


UNSUPPORTED = ToolFailure("ERROR: Unsupported URL: https://example.com/page\n", exit_code=1)


class ScriptedDownloader(Downloader, AudioDownloader):
    def __init__(self) -> None:
        self.entries: dict[str, list[VideoInfo]] = {}
        self.scrape_failures: defaultdict[str, deque[ToolFailure]] = defaultdict(deque)
        self.download_failures: defaultdict[str, deque[ToolFailure]] = defaultdict(deque)
        self.scrapes: list[str] = []
        self.downloads: list[str] = []
        self.audio_downloads: list[str] = []
        self.content: dict[str, bytes] = {}
        self.slow: dict[str, float] = {}
        """Video id → seconds its download takes on `clock`, reporting progress twice a second."""
        self.clock: Clock | None = None

    def serve(self, url: str, *entries: VideoInfo) -> None:
        self.entries[url] = list(entries) or [video(url)]

    async def scrape(
        self, url: str, *, timeout: float, verbose: bool = False, on_output: OutputSink | None = None
    ) -> Result[list[VideoInfo], ToolFailure]:
        self.scrapes.append(url)
        if self.scrape_failures[url]:
            return Failure(self.scrape_failures[url].popleft())
        if url not in self.entries:
            return Failure(UNSUPPORTED)
        if on_output is not None:
            on_output(f"[testsite] {url}: Downloading webpage")
        return Success(list(self.entries[url]))

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
        self.downloads.append(info.id)
        if self.download_failures[info.id]:
            return Failure(self.download_failures[info.id].popleft())
        if on_progress is not None:
            await self._report(info.id, on_progress)
        target = staging / f"{info.id}.{info.ext}"
        target.write_bytes(self.content.get(info.id, f"video bytes of {info.id}".encode()))
        return Success(target)

    async def _report(self, video_id: str, on_progress: ProgressSink) -> None:
        seconds = self.slow.get(video_id)
        if not seconds or self.clock is None:
            on_progress(Progress(50.0, 1e6, 1.0))
            return
        steps = int(seconds * 2)
        for step in range(steps):
            on_progress(Progress(100 * step / steps, 1e6, (steps - step) / 2))
            await self.clock.sleep(0.5)

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
        self.audio_downloads.append(info.id)
        if self.download_failures[info.id]:
            return Failure(self.download_failures[info.id].popleft())
        target = staging / f"{info.id}.m4a"
        target.write_bytes(f"sound bytes of {info.id}".encode())
        return Success(target)

    async def version(self) -> str | None:
        return "2099.01.01"
