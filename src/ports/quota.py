"""The per-user cap on queued work (VIDRELAY_MAX_QUEUED_PER_USER)."""

from __future__ import annotations

from typing import Protocol


class UserQuota(Protocol):
    async def waiting_for_owner(self, owner_id: int) -> int:
        """Jobs of this owner that are not done (waiting or running)."""
        ...
