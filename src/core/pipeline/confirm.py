"""Long-video confirmation in groups: one atomic claim decides between confirm and cancel."""

from __future__ import annotations

import enum
from collections.abc import Callable

from ports.clock import Clock
from ports.pending import CancelOutcome, PendingStore

PENDING_TTL_SECONDS = 6 * 3600.0


class Decision(enum.Enum):
    CONFIRMED = "confirmed"
    CANCELLED = "cancelled"
    NOT_REQUESTER = "not_requester"
    GONE = "gone"


class Confirmations:
    def __init__(self, pending: PendingStore, clock: Clock, wake: Callable[[], None]) -> None:
        self._pending = pending
        self._clock = clock
        self._wake = wake

    async def confirm(self, pending_id: str) -> Decision:
        """Anyone in the group may confirm: the pending row becomes a job in one transaction."""
        if await self._pending.adopt(pending_id, self._clock.now()) is None:
            return Decision.GONE
        self._wake()
        return Decision.CONFIRMED

    async def cancel(self, pending_id: str, user_id: int) -> Decision:
        """Only the requester may cancel."""
        match await self._pending.cancel(pending_id, user_id):
            case CancelOutcome.CANCELLED:
                return Decision.CANCELLED
            case CancelOutcome.NOT_REQUESTER:
                return Decision.NOT_REQUESTER
        return Decision.GONE

    async def expire(self) -> int:
        """Prompts nobody answered for six hours lapse; their pinned bytes become collectable."""
        return len(await self._pending.expire(self._clock.now() - PENDING_TTL_SECONDS))
