"""Parked confirmations (long videos in groups).

Confirm and cancel race on the same row: `adopt` deletes it and inserts its job in one
transaction, `cancel` deletes it; exactly one of them sees the row.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol

from ports.jobs import NewJob


@dataclass(frozen=True, slots=True)
class PendingRequest:
    id: str
    chat_id: int
    user_id: int
    message_id: int
    job: NewJob
    """The job to run once somebody confirms."""
    blob_key: str | None
    """A parked request pins these bytes so GC keeps them."""
    created_at: float


class CancelOutcome(enum.Enum):
    CANCELLED = "cancelled"
    NOT_REQUESTER = "not_requester"
    GONE = "gone"


class PendingStore(Protocol):
    async def park(self, request: PendingRequest) -> None: ...

    async def pending(self, pending_id: str) -> PendingRequest | None: ...

    async def adopt(self, pending_id: str, now: float) -> int | None:
        """Delete the pending row and enqueue its job in one transaction; None if gone."""
        ...

    async def cancel(self, pending_id: str, user_id: int) -> CancelOutcome:
        """Delete the row if `user_id` made the request."""
        ...

    async def expire(self, created_before: float) -> list[PendingRequest]:
        """Delete and return requests parked before `created_before`."""
        ...

    async def pinned_keys(self) -> set[str]: ...
