"""The values of the durable job queue: what is enqueued, what a claim hands out, what failed.

The ports that move them are split by role: `ports.queue.JobQueue` (the workers'),
`ports.queue_view.QueueView` (the operator's) and `ports.quota.UserQuota` (intake's cap).
"""

from __future__ import annotations

from dataclasses import dataclass

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
    requester: int | None = None
    """Whose turn this work takes in the fair order: the chat a link came from (in a private chat,
    that is the user). None: nobody's (periodic and maintenance work), it keeps its own place."""
    quick: bool = False
    """Cheap work that must never wait behind slow work: a link whose video the chat service
    has already (it is only sent again). See ports.queue's quick lane."""


@dataclass(frozen=True, slots=True)
class Lease:
    """One claim of one row: every finishing write names it, and acts only while it holds."""

    job_id: int
    token: int
    """The fencing token: a number the row never carried before this claim."""


@dataclass(frozen=True, slots=True)
class Job:
    id: int
    name: str
    payload: Payload
    attempts: int
    """Claims charged so far, the current one included (write-ahead)."""
    max_attempts: int
    available_at: float
    created_at: float
    key: str = ""
    owner_id: int | None = None
    claimed_by: str | None = None
    lease_until: float | None = None
    last_error: str | None = None
    token: int = 0
    """The fencing token of the row's latest claim (0: never claimed)."""
    suspect: bool = False
    """Its worker died while holding it: it runs alone until an attempt ends normally."""
    requester: int | None = None
    turn: int = 0
    """Its place in the fair order (see ports.queue): claims take the lowest turn first."""

    @property
    def lease(self) -> Lease:
        return Lease(self.id, self.token)


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


@dataclass(frozen=True, slots=True)
class JobNameStats:
    """The rows of one job name at one moment, each in exactly one state."""

    name: str
    queued: int = 0
    """Due and free: waiting for a worker."""
    scheduled: int = 0
    """Due later with no failed attempt behind it (enqueued for later, handed back at a shutdown)."""
    backing_off: int = 0
    """Due later after a failed attempt."""
    running: int = 0
    """Held by a worker whose lease still runs."""
    overdue: int = 0
    """Held past its lease's end: its worker is slow, stalled or dead (taken back at a claim)."""
    failed: int = 0
    """Dead-lettered."""
    oldest_due_at: float | None = None
    """When the longest-waiting queued row became due (None: none queued)."""
    last_failed_at: float | None = None


@dataclass(frozen=True, slots=True)
class QueueStats:
    at: float
    """The moment the states were judged at (what "due" and "overdue" compare with)."""
    names: tuple[JobNameStats, ...]
    """By job name, in name order; only names with rows."""
