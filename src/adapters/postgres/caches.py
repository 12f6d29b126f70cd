"""The scraped-info cache and the handled-URL marks on PostgreSQL, shared by every worker."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.postgres.database import PostgresAccess
from adapters.sql.info_rows import dump_entries, load_entries
from adapters.sql.json_text import CorruptEntry
from ports.caches import HandledUrls, InfoCache
from ports.media import VideoInfo

_CACHED_INFO = "SELECT entries, created_at FROM video_info WHERE url = $1"
_CACHE_INFO = """
    INSERT INTO video_info (url, entries, canonical, created_at)
    SELECT url, $2, $3, $4 FROM unnest($1::text[]) AS url
    ON CONFLICT (url) DO UPDATE SET entries = EXCLUDED.entries, canonical = EXCLUDED.canonical,
        created_at = EXCLUDED.created_at
"""
# The empty URL marks the message itself: no link is ever empty, so it never blocks a job.
_REMEMBER_MESSAGE = """
    INSERT INTO handled_urls (chat_id, message_id, url, created_at) VALUES ($1, $2, '', $3)
    ON CONFLICT DO NOTHING
"""
_KNOWS_MESSAGE = "SELECT EXISTS (SELECT 1 FROM handled_urls WHERE chat_id = $1 AND message_id = $2)"
# Evicting a URL takes every alias with it: the URL, its canonical URLs, and every row sharing one.
_EVICT_INFO = """
    WITH doomed AS (
        SELECT array_agg(DISTINCT url) AS urls FROM (
            SELECT $1::text AS url
            UNION ALL
            SELECT unnest(canonical) FROM video_info WHERE url = $1
        ) AS named
    )
    DELETE FROM video_info
    WHERE url IN (SELECT unnest(urls) FROM doomed) OR canonical && (SELECT urls FROM doomed)
"""


class PostgresInfoCache(PostgresAccess, InfoCache):
    async def cached_info(self, url: str, fresh_after: float) -> list[VideoInfo] | None:
        row = await self._db.fetchrow(_CACHED_INFO, url)
        if row is None or row[1] < fresh_after:
            return None
        try:
            return load_entries(row[0])
        except CorruptEntry:
            await self._db.execute("DELETE FROM video_info WHERE url = $1 AND entries = $2", url, row[0])
            return None

    async def cache_info(self, urls: Sequence[str], entries: Sequence[VideoInfo], now: float) -> None:
        canonical = sorted({e.webpage_url for e in entries if e.webpage_url})
        rows = sorted({*urls, *canonical})
        await self._db.execute(_CACHE_INFO, rows, dump_entries(entries), canonical, now)

    async def evict_info(self, url: str) -> None:
        await self._db.execute(_EVICT_INFO, url)

    async def sweep_info(self, created_before: float) -> int:
        return await self._db.execute("DELETE FROM video_info WHERE created_at < $1", created_before)


class PostgresHandledUrls(PostgresAccess, HandledUrls):
    async def remember_message(self, chat_id: int, message_id: int, now: float) -> None:
        await self._db.execute(_REMEMBER_MESSAGE, chat_id, message_id, now)

    async def knows_message(self, chat_id: int, message_id: int) -> bool:
        known: bool = await self._db.fetchval(_KNOWS_MESSAGE, chat_id, message_id)
        return known

    async def forget_handled(self, chat_id: int, message_id: int, url: str) -> None:
        sql = "DELETE FROM handled_urls WHERE chat_id = $1 AND message_id = $2 AND url = $3"
        await self._db.execute(sql, chat_id, message_id, url)

    async def sweep_handled(self, created_before: float) -> int:
        return await self._db.execute("DELETE FROM handled_urls WHERE created_at < $1", created_before)
