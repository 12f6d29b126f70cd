"""The scraped-info cache and the handled-URL marks on SQLite."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.sql.info_rows import dump_entries, load_entries
from adapters.sql.json_text import CorruptEntry, dump_json, load_urls
from adapters.sqlite.connection import Db, changes, fetch_one
from adapters.sqlite.port_base import SqliteAccess
from ports.caches import HandledUrls, InfoCache
from ports.media import VideoInfo

_CACHED_INFO = "SELECT entries, canonical, created_at FROM video_info WHERE url = ?"
_CACHE_INFO = "INSERT OR REPLACE INTO video_info (url, entries, canonical, created_at) VALUES (?, ?, ?, ?)"
_SWEEP_INFO = "DELETE FROM video_info WHERE created_at < ?"
_SWEEP_HANDLED = "DELETE FROM handled_urls WHERE created_at < ?"
# The empty URL marks the message itself: no link is ever empty, so it never blocks a job.
_REMEMBER_MESSAGE = """
    INSERT INTO handled_urls (chat_id, message_id, url, created_at) VALUES (?, ?, '', ?)
    ON CONFLICT DO NOTHING
"""
_KNOWS_MESSAGE = "SELECT 1 FROM handled_urls WHERE chat_id = ? AND message_id = ? LIMIT 1"
_FORGET_HANDLED = "DELETE FROM handled_urls WHERE chat_id = ? AND message_id = ? AND url = ?"
# Evicting a URL takes every alias with it: the URL, its canonical URLs, and every row sharing
# one of them. A row whose canonical list is damaged contributes no aliases instead of failing.
_EVICT_INFO = """
    WITH doomed(url) AS (
        SELECT :url
        UNION
        SELECT alias.value
        FROM video_info AS v,
            json_each(CASE WHEN json_valid(v.canonical) THEN v.canonical ELSE '[]' END) AS alias
        WHERE v.url = :url
    )
    DELETE FROM video_info
    WHERE url IN doomed
        OR EXISTS (
            SELECT 1
            FROM json_each(CASE WHEN json_valid(canonical) THEN canonical ELSE '[]' END) AS alias
            WHERE alias.value IN doomed
        )
"""


class SqliteInfoCache(SqliteAccess, InfoCache):
    async def cached_info(self, url: str, fresh_after: float) -> list[VideoInfo] | None:
        async def work(db: Db) -> list[VideoInfo] | None:
            row = await fetch_one(db, _CACHED_INFO, (url,))
            if row is None or row[2] < fresh_after:
                return None
            try:
                load_urls(row[1])
                return load_entries(row[0])
            except CorruptEntry:
                await db.execute("DELETE FROM video_info WHERE url = ?", (url,))
                return None

        return await self._write(work)

    async def cache_info(self, urls: Sequence[str], entries: Sequence[VideoInfo], now: float) -> None:
        canonical = sorted({e.webpage_url for e in entries if e.webpage_url})
        stored, aliases = dump_entries(entries), dump_json(canonical)
        rows = [(url, stored, aliases, now) for url in sorted({*urls, *canonical})]
        await self._write(lambda db: db.executemany(_CACHE_INFO, rows))

    async def evict_info(self, url: str) -> None:
        await self._write(lambda db: changes(db, _EVICT_INFO, {"url": url}))

    async def sweep_info(self, created_before: float) -> int:
        return await self._write(lambda db: changes(db, _SWEEP_INFO, (created_before,)))


class SqliteHandledUrls(SqliteAccess, HandledUrls):
    async def remember_message(self, chat_id: int, message_id: int, now: float) -> None:
        await self._write(lambda db: changes(db, _REMEMBER_MESSAGE, (chat_id, message_id, now)))

    async def knows_message(self, chat_id: int, message_id: int) -> bool:
        row = await self._read(lambda db: fetch_one(db, _KNOWS_MESSAGE, (chat_id, message_id)))
        return row is not None

    async def forget_handled(self, chat_id: int, message_id: int, url: str) -> None:
        await self._write(lambda db: changes(db, _FORGET_HANDLED, (chat_id, message_id, url)))

    async def sweep_handled(self, created_before: float) -> int:
        return await self._write(lambda db: changes(db, _SWEEP_HANDLED, (created_before,)))
