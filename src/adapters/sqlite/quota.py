"""The per-user cap's count on SQLite."""

from __future__ import annotations

from adapters.sqlite.port_base import SqliteAccess
from ports.quota import UserQuota

_COUNT_FOR_OWNER = "SELECT count(*) FROM jobs WHERE owner_id = ?"


class SqliteUserQuota(SqliteAccess, UserQuota):
    async def waiting_for_owner(self, owner_id: int) -> int:
        count: int = await self._read(lambda c: c.execute(_COUNT_FOR_OWNER, (owner_id,)).fetchone()[0])
        return count
