"""Scrapes through the watch: the one whose failure rolled the release back, and one that failed
while another process's rollback was followed, run once more on the version now in use."""

from __future__ import annotations

from pathlib import Path

from returns.result import Failure, Result, Success

from core.work.rollback.watched import WatchedDownloader
from ports.media import Downloader, OutputSink, ProgressSink, ToolFailure, VideoInfo
from tests.unit.core.work.rollback.conftest import BAD, GOOD, Watched, broken, entry


class VersionedSite(Downloader):
    """Scrapes as each version of the shelf updater runs them: BAD breaks every link."""

    def __init__(self, w: Watched) -> None:
        self._w = w
        self.ran: list[tuple[str, str]] = []

    async def scrape(
        self, url: str, *, timeout: float, verbose: bool = False, on_output: OutputSink | None = None
    ) -> Result[list[VideoInfo], ToolFailure]:
        self.ran.append((url, self._w.updater.current))
        return Failure(broken()) if self._w.updater.current == BAD else Success([entry(url)])

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
        return Success(staging / "video.mp4")

    async def version(self) -> str | None:
        return self._w.updater.current


async def test_the_scrape_that_rolled_the_release_back_runs_again_on_the_previous_one(
    on_bad: Watched,
) -> None:
    await on_bad.store.record_success("generic", GOOD)
    site = VersionedSite(on_bad)
    downloader = WatchedDownloader(site, on_bad.watch)

    outcomes = [await downloader.scrape(f"https://s.example/{n}", timeout=60) for n in (1, 2, 3)]

    assert [isinstance(o, Success) for o in outcomes] == [False, False, True]
    assert site.ran[2:] == [("https://s.example/3", BAD), ("https://s.example/3", GOOD)]
    assert (await on_bad.store.tally("generic", GOOD)).successes == 2  # the run again counted too


async def test_a_failure_with_no_switch_runs_once(on_bad: Watched) -> None:
    site = VersionedSite(on_bad)

    scraped = await WatchedDownloader(site, on_bad.watch).scrape("https://s.example/1", timeout=60)

    assert isinstance(scraped, Failure)
    assert site.ran == [("https://s.example/1", BAD)]


async def test_downloads_and_the_version_pass_through(on_bad: Watched, tmp_path: Path) -> None:
    downloader = WatchedDownloader(VersionedSite(on_bad), on_bad.watch)

    assert await downloader.download(entry("u"), tmp_path, timeout=60) == Success(tmp_path / "video.mp4")
    assert await downloader.version() == BAD
