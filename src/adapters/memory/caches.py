"""The scraped-info cache and the handled-URL marks in memory."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.memory.tables import CachedInfo, MemoryTablesUser
from ports.caches import HandledUrls, InfoCache
from ports.media import VideoInfo


class MemoryInfoCache(MemoryTablesUser, InfoCache):
    async def cached_info(self, url: str, fresh_after: float) -> list[VideoInfo] | None:
        cached = self._tables.info.get(url)
        if cached is None or cached.created_at < fresh_after:
            return None
        return list(cached.entries)

    async def cache_info(self, urls: Sequence[str], entries: Sequence[VideoInfo], now: float) -> None:
        canonical = frozenset(e.webpage_url for e in entries if e.webpage_url)
        cached = CachedInfo(tuple(entries), canonical, now)
        for url in {*urls, *canonical}:
            self._tables.info[url] = cached

    async def evict_info(self, url: str) -> None:
        info = self._tables.info
        cached = info.get(url)
        doomed = {url} | (set(cached.canonical) if cached else set())
        for key, other in list(info.items()):
            if key in doomed or other.canonical & doomed:
                del info[key]

    async def sweep_info(self, created_before: float) -> int:
        old = [url for url, cached in self._tables.info.items() if cached.created_at < created_before]
        for url in old:
            del self._tables.info[url]
        return len(old)


class MemoryHandledUrls(MemoryTablesUser, HandledUrls):
    async def remember_message(self, chat_id: int, message_id: int, now: float) -> None:
        # The empty URL marks the message itself: no link is ever empty, so it never blocks a job.
        self._tables.handled.setdefault((chat_id, message_id, ""), now)

    async def knows_message(self, chat_id: int, message_id: int) -> bool:
        return any(chat == chat_id and message == message_id for chat, message, _ in self._tables.handled)

    async def forget_handled(self, chat_id: int, message_id: int, url: str) -> None:
        self._tables.handled.pop((chat_id, message_id, url), None)

    async def sweep_handled(self, created_before: float) -> int:
        old = [key for key, at in self._tables.handled.items() if at < created_before]
        for key in old:
            del self._tables.handled[key]
        return len(old)
