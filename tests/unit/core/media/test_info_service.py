"""InfoService over MemoryStore: cached scrapes, aliases, TTL, eviction, a cache that fails."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from returns.result import Failure, Result, Success

from adapters.memory.store import MemoryStore
from core.media.info_cache import INFO_TTL_SECONDS, InfoService
from ports.errors import StoreError
from ports.media import OutputSink, ProgressSink, ToolFailure, VideoInfo
from tests.support.clock import VirtualClock

SHORT = "https://youtu.be/abc"
CANONICAL = "https://www.youtube.com/watch?v=abc"
ENTRY = VideoInfo(
    url=SHORT,
    webpage_url=CANONICAL,
    extractor="youtube",
    id="abc",
    title="A clip",
    format_id="18",
    ext="mp4",
    info_json='{"id": "abc"}',
)
BROKEN = ToolFailure("ERROR: [youtube] abc: Video unavailable", exit_code=1)


class FakeDownloader:
    def __init__(self, entries: list[VideoInfo] | None = None) -> None:
        self.entries = [ENTRY] if entries is None else entries
        self.failure: ToolFailure | None = None
        self.scraped: list[tuple[str, float, bool]] = []
        self.output_lines = ["[youtube] abc: Downloading webpage"]

    async def scrape(
        self, url: str, *, timeout: float, verbose: bool = False, on_output: OutputSink | None = None
    ) -> Result[list[VideoInfo], ToolFailure]:
        self.scraped.append((url, timeout, verbose))
        for line in self.output_lines:
            if on_output:
                on_output(line)
        if self.failure:
            return Failure(self.failure)
        return Success([replace(e, url=url) for e in self.entries])

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
        raise AssertionError("the info service never downloads")

    async def version(self) -> str | None:
        return "test"


class FailingStore(MemoryStore):
    """A store whose cache calls raise, as a locked or broken database would."""

    def __init__(
        self, *, reads: bool = False, writes: bool = False, evictions: bool = False, bug: bool = False
    ) -> None:
        super().__init__()
        self.fail_reads, self.fail_writes, self.fail_evictions = reads, writes, evictions
        self.bug = bug

    async def cached_info(self, url: str, fresh_after: float) -> list[VideoInfo] | None:
        if self.bug:
            raise TypeError("a bug in the adapter")
        if self.fail_reads:
            raise StoreError("database is locked")
        return await super().cached_info(url, fresh_after)

    async def cache_info(self, urls: Sequence[str], entries: Sequence[VideoInfo], now: float) -> None:
        if self.fail_writes:
            raise StoreError("disk I/O error")
        await super().cache_info(urls, entries, now)

    async def evict_info(self, url: str) -> None:
        if self.fail_evictions:
            raise StoreError("database is locked")
        await super().evict_info(url)


@pytest.fixture
def downloader() -> FakeDownloader:
    return FakeDownloader()


@pytest.fixture
def service(store: MemoryStore, downloader: FakeDownloader, clock: VirtualClock) -> InfoService:
    return InfoService(store, downloader, clock)


async def test_a_scrape_is_cached_under_the_url_and_its_canonical_alias(
    service: InfoService, store: MemoryStore, downloader: FakeDownloader, clock: VirtualClock
) -> None:
    first = await service.scrape(SHORT, timeout=30.0)

    assert first == Success([ENTRY])
    assert downloader.scraped == [(SHORT, 30.0, False)]
    assert await store.cached_info(SHORT, fresh_after=clock.now()) == [ENTRY]
    assert await store.cached_info(CANONICAL, fresh_after=clock.now()) == [ENTRY]


async def test_the_second_request_by_url_or_alias_skips_yt_dlp(
    service: InfoService, downloader: FakeDownloader
) -> None:
    await service.scrape(SHORT, timeout=30.0)

    assert await service.scrape(SHORT, timeout=30.0) == Success([ENTRY])
    assert await service.scrape(CANONICAL, timeout=30.0) == Success([ENTRY])
    assert len(downloader.scraped) == 1


async def test_cached_info_expires_after_six_hours(
    service: InfoService, downloader: FakeDownloader, clock: VirtualClock
) -> None:
    await service.scrape(SHORT, timeout=30.0)
    await clock.advance(INFO_TTL_SECONDS - 1)
    await service.scrape(SHORT, timeout=30.0)
    assert len(downloader.scraped) == 1

    await clock.advance(2)
    await service.scrape(SHORT, timeout=30.0)

    assert len(downloader.scraped) == 2


async def test_bypass_cache_scrapes_again_verbosely_and_streams_the_output(
    service: InfoService, downloader: FakeDownloader
) -> None:
    await service.scrape(SHORT, timeout=30.0)
    lines: list[str] = []

    result = await service.scrape(
        SHORT, timeout=30.0, bypass_cache=True, verbose=True, on_output=lines.append
    )

    assert result == Success([ENTRY])
    assert downloader.scraped[-1] == (SHORT, 30.0, True)
    assert lines == ["[youtube] abc: Downloading webpage"]


async def test_a_yt_dlp_error_evicts_the_url_and_its_aliases(
    service: InfoService, store: MemoryStore, downloader: FakeDownloader, clock: VirtualClock
) -> None:
    await service.scrape(SHORT, timeout=30.0)
    downloader.failure = BROKEN

    result = await service.scrape(CANONICAL, timeout=30.0, bypass_cache=True)

    assert result == Failure(BROKEN)
    assert await store.cached_info(CANONICAL, fresh_after=0.0) is None
    assert await store.cached_info(SHORT, fresh_after=0.0) is None


async def test_evict_forgets_a_url_so_the_retry_scrapes_again(
    service: InfoService, downloader: FakeDownloader
) -> None:
    await service.scrape(SHORT, timeout=30.0)

    await service.evict(CANONICAL)
    await service.scrape(SHORT, timeout=30.0)

    assert len(downloader.scraped) == 2


async def test_a_failed_cache_write_is_logged_and_never_fails_the_scrape(
    downloader: FakeDownloader, clock: VirtualClock, caplog: pytest.LogCaptureFixture
) -> None:
    service = InfoService(FailingStore(writes=True), downloader, clock)

    with caplog.at_level(logging.WARNING, logger="vidrelay.info_cache"):
        result = await service.scrape(SHORT, timeout=30.0)

    assert result == Success([ENTRY])
    assert "write failed" in caplog.text
    assert "disk I/O error" in caplog.text


async def test_a_failed_cache_read_falls_back_to_a_scrape(
    downloader: FakeDownloader, clock: VirtualClock, caplog: pytest.LogCaptureFixture
) -> None:
    service = InfoService(FailingStore(reads=True), downloader, clock)

    with caplog.at_level(logging.WARNING, logger="vidrelay.info_cache"):
        result = await service.scrape(SHORT, timeout=30.0)

    assert result == Success([ENTRY])
    assert len(downloader.scraped) == 1
    assert "read failed" in caplog.text


async def test_a_failed_eviction_still_returns_the_tool_failure(
    downloader: FakeDownloader, clock: VirtualClock, caplog: pytest.LogCaptureFixture
) -> None:
    service = InfoService(FailingStore(evictions=True), downloader, clock)
    downloader.failure = BROKEN

    with caplog.at_level(logging.WARNING, logger="vidrelay.info_cache"):
        result = await service.scrape(SHORT, timeout=30.0)

    assert result == Failure(BROKEN)
    assert "could not evict" in caplog.text


async def test_a_bug_behind_the_cache_is_not_swallowed(
    downloader: FakeDownloader, clock: VirtualClock
) -> None:
    service = InfoService(FailingStore(bug=True), downloader, clock)

    with pytest.raises(TypeError, match="a bug in the adapter"):
        await service.scrape(SHORT, timeout=30.0)

    assert downloader.scraped == []


async def test_an_empty_scrape_is_not_cached(
    store: MemoryStore, clock: VirtualClock, downloader: FakeDownloader
) -> None:
    downloader.entries = []
    service = InfoService(store, downloader, clock)

    assert await service.scrape(SHORT, timeout=30.0) == Success([])
    assert await service.scrape(SHORT, timeout=30.0) == Success([])

    assert len(downloader.scraped) == 2


async def test_a_post_with_several_entries_is_cached_under_every_canonical_url(
    store: MemoryStore, clock: VirtualClock
) -> None:
    second = replace(ENTRY, id="def", webpage_url="https://www.youtube.com/watch?v=def")
    downloader = FakeDownloader([ENTRY, second])
    service = InfoService(store, downloader, clock)

    await service.scrape("https://example.com/playlist", timeout=30.0)

    for url in ("https://example.com/playlist", CANONICAL, second.webpage_url):
        assert await service.scrape(url, timeout=30.0) == Success(
            [
                replace(ENTRY, url="https://example.com/playlist"),
                replace(second, url="https://example.com/playlist"),
            ]
        )
    assert len(downloader.scraped) == 1


async def test_sweep_drops_entries_older_than_the_ttl(
    service: InfoService, store: MemoryStore, clock: VirtualClock
) -> None:
    await service.scrape(SHORT, timeout=30.0)
    assert await service.sweep() == 0

    await clock.advance(INFO_TTL_SECONDS + 1)

    assert await service.sweep() == 2
    assert await store.cached_info(SHORT, fresh_after=0.0) is None
