"""What intake counts per user, on SQLite."""

from __future__ import annotations

from adapters.sqlite.connection import Db, fetch_all, fetch_one
from adapters.sqlite.port_base import SqliteAccess
from ports.quota import UserQuota

_COUNT_FOR_OWNER = "SELECT count(*) FROM jobs WHERE owner_id = ?"
_LINKS_SINCE = "SELECT at FROM user_links WHERE user_id = ? AND at >= ? ORDER BY at"
_COUNT_LINK = "INSERT INTO user_links (user_id, at) VALUES (?, ?)"
_FORGET = "DELETE FROM user_links WHERE user_id = ? AND at < ?"


class SqliteUserQuota(SqliteAccess, UserQuota):
    async def waiting_for_owner(self, owner_id: int) -> int:
        (count,) = await self._read(lambda db: fetch_one(db, _COUNT_FOR_OWNER, (owner_id,)))
        return int(count)

    async def links_since(self, user_id: int, since: float) -> list[float]:
        rows = await self._read(lambda db: fetch_all(db, _LINKS_SINCE, (user_id, since)))
        return [row[0] for row in rows]

    async def count_link(self, user_id: int, at: float, forget_before: float) -> None:
        async def work(db: Db) -> None:
            await db.execute(_FORGET, (user_id, forget_before))
            await db.execute(_COUNT_LINK, (user_id, at))

        await self._write(work)
