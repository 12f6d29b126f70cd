"""The durable job queue: values and the store port.

Contract every adapter keeps (checked by tests/contract):
- `claim` is one transaction: it picks the oldest claimable row (FIFO by id), increments
  `attempts` *before* the work runs (write-ahead), and takes a lease. A row is claimable when
  `available_at <= now`, its key is not paused, and it has no lease or its lease expired.
- `complete`, `retry_later`, `release` and `dead_letter` act on one row atomically;
  `dead_letter` inserts into the failed table and deletes the job in the same transaction.
- `enqueue` with a guard commits the guard's mark and the job together, or neither.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from ports.json import Payload


@dataclass(frozen=True, slots=True)
class NewJob:
    name: str
    payload: Payload
    max_attempts: int
    available_at: float = 0.0
    key: str = ""
    """Circuit-breaker key, e.g. the site's host; empty means no breaker."""
    owner_id: int | None = None
    """The user who asked for this work (per-user queue cap)."""


@dataclass(frozen=True, slots=True)
class Job:
    id: int
    name: str
    payload: Payload
    attempts: int
    """Claims so far, the current one included (write-ahead)."""
    max_attempts: int
    available_at: float
    created_at: float
    key: str = ""
    owner_id: int | None = None
    claimed_by: str | None = None
    lease_until: float | None = None
    last_error: str | None = None


@dataclass(frozen=True, slots=True)
class FailedJob:
    id: int
    job_id: int
    name: str
    payload: Payload
    error: str
    attempts: int
    max_attempts: int
    created_at: float
    failed_at: float
    key: str = ""
    owner_id: int | None = None


@dataclass(frozen=True, slots=True)
class HandledUrlGuard:
    """Enqueue only if this (chat, message, url) was not handled yet; the mark commits with the job."""

    chat_id: int
    message_id: int
    url: str


@dataclass(frozen=True, slots=True)
class SingletonGuard:
    """Enqueue only if no job of the same name is waiting or running (a slow periodic job never stacks)."""


Guard = HandledUrlGuard | SingletonGuard


@dataclass(frozen=True, slots=True)
class QueueCounts:
    waiting: int
    running: int
    failed: int


class JobStore(Protocol):
    async def enqueue(self, job: NewJob, now: float, guard: Guard | None = None) -> int | None:
        """Insert `job`; returns its id, or None when the guard refused (then nothing is written)."""
        ...

    async def claim(
        self,
        worker_id: str,
        now: float,
        lease_seconds: float,
        paused_keys: Collection[str] = (),
    ) -> Job | None:
        """Claim the oldest claimable job, write-ahead (see the module contract)."""
        ...

    async def complete(self, job_id: int) -> None:
        """The work is fully done: delete the row."""
        ...

    async def retry_later(self, job_id: int, available_at: float, error: str) -> None:
        """Drop the lease and make the row claimable again at `available_at`; attempts stay."""
        ...

    async def release(self, job_id: int, available_at: float) -> None:
        """Drop the lease and refund the write-ahead attempt: the job did not get to fail
        (shutdown, paused key). It becomes claimable at `available_at`."""
        ...

    async def update_payload(self, job_id: int, payload: Payload) -> None:
        """Persist what an attempt learned (e.g. its log message) for the attempts after it."""
        ...

    async def dead_letter(self, job_id: int, error: str, now: float) -> FailedJob | None:
        """Move the row to the failed table, atomically; None when the row is already gone."""
        ...

    async def recover_leases(self) -> int:
        """Single-process boot: every leased row belongs to a dead process; drop the leases."""
        ...

    async def exhausted(self, now: float) -> list[Job]:
        """Unleased (or lease-expired) rows whose attempts reached max_attempts."""
        ...

    async def next_wakeup(self, now: float, paused_keys: Collection[str] = ()) -> float | None:
        """When the next row becomes claimable (available_at or lease expiry); None if never."""
        ...

    async def counts(self) -> QueueCounts: ...

    async def waiting_for_owner(self, owner_id: int) -> int:
        """Jobs of this owner that are not done (waiting or running)."""
        ...

    async def list_jobs(self, limit: int = 100) -> list[Job]: ...

    async def list_failed(self, limit: int = 100) -> list[FailedJob]: ...

    async def retry_failed(self, failed_ids: Sequence[int] | None, now: float) -> list[int]:
        """Move failed rows back into the queue with attempts 0 (None = all); returns new job ids."""
        ...

    async def purge_failed(self) -> int: ...
