"""What intake counts per user, on SQLite."""

from __future__ import annotations

import sqlite3

from adapters.sqlite.port_base import SqliteAccess
from ports.quota import UserQuota

_COUNT_FOR_OWNER = "SELECT count(*) FROM jobs WHERE owner_id = ?"
_LINKS_SINCE = "SELECT at FROM user_links WHERE user_id = ? AND at >= ? ORDER BY at"
_COUNT_LINK = "INSERT INTO user_links (user_id, at) VALUES (?, ?)"
_FORGET = "DELETE FROM user_links WHERE user_id = ? AND at < ?"


class SqliteUserQuota(SqliteAccess, UserQuota):
    async def waiting_for_owner(self, owner_id: int) -> int:
        count: int = await self._read(lambda c: c.execute(_COUNT_FOR_OWNER, (owner_id,)).fetchone()[0])
        return count

    async def links_since(self, user_id: int, since: float) -> list[float]:
        return await self._read(lambda c: [row[0] for row in c.execute(_LINKS_SINCE, (user_id, since))])

    async def count_link(self, user_id: int, at: float, forget_before: float) -> None:
        def work(c: sqlite3.Connection) -> None:
            c.execute(_FORGET, (user_id, forget_before))
            c.execute(_COUNT_LINK, (user_id, at))

        await self._write(work)
