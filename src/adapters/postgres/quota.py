"""The per-user cap's count on PostgreSQL."""

from __future__ import annotations

from adapters.postgres.database import PostgresAccess
from ports.quota import UserQuota


class PostgresUserQuota(PostgresAccess, UserQuota):
    async def waiting_for_owner(self, owner_id: int) -> int:
        count: int = await self._db.fetchval("SELECT count(*) FROM jobs WHERE owner_id = $1", owner_id)
        return count
