"""What intake counts per user, in memory."""

from __future__ import annotations

from adapters.memory.tables import MemoryTablesUser
from ports.quota import UserQuota


class MemoryUserQuota(MemoryTablesUser, UserQuota):
    async def waiting_for_owner(self, owner_id: int) -> int:
        return sum(1 for j in self._tables.jobs.values() if j.owner_id == owner_id)

    async def links_since(self, user_id: int, since: float) -> list[float]:
        return sorted(at for at in self._tables.user_links.get(user_id, []) if at >= since)

    async def count_link(self, user_id: int, at: float, forget_before: float) -> None:
        kept = [t for t in self._tables.user_links.get(user_id, []) if t >= forget_before]
        self._tables.user_links[user_id] = [*kept, at]
