"""The Downloader port with its scrapes judged by the release watch.

A scrape that failed while the version in use changed under it — an update, another process's
rollback followed, or the rollback this very failure decided — runs once more on the version in
use now: what failed may be the old release's doing, and the link's job should not pay for it.
"""

from __future__ import annotations

from pathlib import Path

from returns.result import Result

from core.work.rollback.watch import ReleaseWatch
from ports.media import Downloader, OutputSink, ProgressSink, ToolFailure, VideoInfo


class WatchedDownloader(Downloader):
    def __init__(self, downloader: Downloader, watch: ReleaseWatch) -> None:
        self._downloader = downloader
        self._watch = watch

    async def scrape(
        self,
        url: str,
        *,
        timeout: float,
        verbose: bool = False,
        on_output: OutputSink | None = None,
    ) -> Result[list[VideoInfo], ToolFailure]:
        for last in (False, True):
            version = await self._watch.version()
            scraped = await self._downloader.scrape(
                url, timeout=timeout, verbose=verbose, on_output=on_output
            )
            if not await self._watch.judge(url, version, scraped) or last:
                break
        return scraped

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
        return await self._downloader.download(
            info, staging, timeout=timeout, verbose=verbose, on_progress=on_progress, on_output=on_output
        )

    async def version(self) -> str | None:
        return await self._downloader.version()
