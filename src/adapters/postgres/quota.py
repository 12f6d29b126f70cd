"""What intake counts per user, on PostgreSQL."""

from __future__ import annotations

from adapters.postgres.database import PostgresAccess
from ports.quota import UserQuota

_LINKS_SINCE = "SELECT at FROM user_links WHERE user_id = $1 AND at >= $2 ORDER BY at"
_COUNT_LINK = """
    WITH forgotten AS (DELETE FROM user_links WHERE user_id = $1 AND at < $3)
    INSERT INTO user_links (user_id, at) VALUES ($1, $2)
"""


class PostgresUserQuota(PostgresAccess, UserQuota):
    async def waiting_for_owner(self, owner_id: int) -> int:
        count: int = await self._db.fetchval("SELECT count(*) FROM jobs WHERE owner_id = $1", owner_id)
        return count

    async def links_since(self, user_id: int, since: float) -> list[float]:
        return [row[0] for row in await self._db.fetch(_LINKS_SINCE, user_id, since)]

    async def count_link(self, user_id: int, at: float, forget_before: float) -> None:
        await self._db.execute(_COUNT_LINK, user_id, at, forget_before)
