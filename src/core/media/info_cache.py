"""Scraped info, cached: a second request for a URL (or one of its aliases) skips yt-dlp.

The cache is an optimisation, never a source of failure: a read or write the store cannot do
(StoreError) is logged and the scrape goes on; anything else is a bug and propagates. A yt-dlp
error evicts the URL and its aliases, because the cached info (signed media URLs, a removed
post) may be what broke.
"""

from __future__ import annotations

import logging

from returns.result import Failure, Result, Success

from core.media.keyed_lock import KeyedLock
from ports.caches import InfoCache
from ports.clock import Clock
from ports.errors import StoreError
from ports.media import Downloader, OutputSink, ToolFailure, VideoInfo

log = logging.getLogger("vidrelay.info_cache")

INFO_TTL_SECONDS = 6 * 3600.0

ScrapeResult = Result[list[VideoInfo], ToolFailure]


class InfoService:
    def __init__(
        self,
        cache: InfoCache,
        downloader: Downloader,
        clock: Clock,
        *,
        ttl_seconds: float = INFO_TTL_SECONDS,
    ) -> None:
        self._cache = cache
        self._downloader = downloader
        self._clock = clock
        self._ttl = ttl_seconds
        self._scraping = KeyedLock()

    async def scrape(
        self,
        url: str,
        *,
        timeout: float,
        bypass_cache: bool = False,
        verbose: bool = False,
        on_output: OutputSink | None = None,
    ) -> ScrapeResult:
        """Every entry behind `url`, from the cache when fresh (unless `bypass_cache`).

        Concurrent requests for one URL scrape it once: the others wait for that scrape and
        then find its entries in the cache.
        """
        if bypass_cache:
            return await self._scrape(url, timeout, verbose, on_output)
        async with self._scraping.hold(url):
            cached = await self._cached(url)
            if cached:
                return Success(cached)
            return await self._scrape(url, timeout, verbose, on_output)

    async def _scrape(
        self, url: str, timeout: float, verbose: bool, on_output: OutputSink | None
    ) -> ScrapeResult:
        scraped = await self._downloader.scrape(url, timeout=timeout, verbose=verbose, on_output=on_output)
        if isinstance(scraped, Failure):
            await self.evict(url)
            return scraped
        entries = scraped.unwrap()
        if entries:
            await self._store(url, entries)
        return Success(entries)

    async def evict(self, url: str) -> None:
        """Forget `url` and its aliases, so the next request scrapes again."""
        try:
            await self._cache.evict_info(url)
        except StoreError:
            log.warning("info cache: could not evict a link", exc_info=True, extra={"url": url})

    async def sweep(self) -> int:
        return await self._cache.sweep_info(self._clock.now() - self._ttl)

    async def cached(self, url: str) -> list[VideoInfo] | None:
        """Fresh cached entries for `url`, or None: never scrapes."""
        return await self._cached(url)

    async def _cached(self, url: str) -> list[VideoInfo] | None:
        try:
            return await self._cache.cached_info(url, fresh_after=self._clock.now() - self._ttl)
        except StoreError:
            log.warning("info cache: read failed; scraping instead", exc_info=True, extra={"url": url})
            return None

    async def _store(self, url: str, entries: list[VideoInfo]) -> None:
        try:
            await self._cache.cache_info(_aliases(url, entries), entries, self._clock.now())
        except StoreError:
            log.warning("info cache: write failed; the scrape stands", exc_info=True, extra={"url": url})


def _aliases(url: str, entries: list[VideoInfo]) -> list[str]:
    """The requested URL and every canonical `webpage_url`, each once."""
    return list(dict.fromkeys([url, *(e.webpage_url for e in entries if e.webpage_url)]))
