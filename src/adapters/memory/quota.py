"""The per-user cap's count, in memory."""

from __future__ import annotations

from adapters.memory.tables import MemoryTablesUser
from ports.quota import UserQuota


class MemoryUserQuota(MemoryTablesUser, UserQuota):
    async def waiting_for_owner(self, owner_id: int) -> int:
        return sum(1 for j in self._tables.jobs.values() if j.owner_id == owner_id)
