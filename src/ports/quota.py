"""What intake counts per user: the queued work (VIDRELAY_MAX_QUEUED_PER_USER) and the links
sent lately (VIDRELAY_USER_HOURLY_LINKS / _DAILY_LINKS), both kept in the store so that they
hold across restarts and across every ingest process."""

from __future__ import annotations

from typing import Protocol


class UserQuota(Protocol):
    async def waiting_for_owner(self, owner_id: int) -> int:
        """Jobs of this owner that are not done (waiting or running)."""
        ...

    async def links_since(self, user_id: int, since: float) -> list[float]:
        """When this user's counted links came, from `since` on, oldest first."""
        ...

    async def count_link(self, user_id: int, at: float, forget_before: float) -> None:
        """Count one link of this user at `at`; their links before `forget_before` are no longer
        needed by any window and may go."""
        ...
