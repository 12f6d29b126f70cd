"""The jobs this process holds right now: what the heartbeat renews and what /status counts.

A job is held from the moment its claim returns until its finishing write landed, so the lease
covers the whole attempt: the run, the hooks and the write.

Each held job knows where its lease ends by a conservative local estimate: the moment the claim
or the last renewal that succeeded was *sent* (the store may have taken it later, never
earlier), plus the lease's length, on the monotonic clock. And it can be stopped at once
(`HeldJob.stop`), which is the one way an attempt is ended from outside: the store said
another claim took the row, the lease could not be renewed before its end, or someone cancels
the job. The attempt's task is cancelled (which kills its child processes) and the attempt
raises `AttemptStopped` with the reason; it makes no further Telegram call (`core.jobs.fence`).
"""

from __future__ import annotations

import asyncio
import enum
import math
from dataclasses import dataclass
from typing import Any

from ports.jobs import Job, Lease


class StopReason(enum.Enum):
    LOST = "another claim took the job over"
    EXPIRED = "its lease could not be renewed before its end"
    CANCELLED = "its user cancelled it"
    """The user cancelled the job (ports.cancels): stop, then settle it as done, not failed."""


class AttemptStopped(Exception):
    """The attempt was stopped from outside (see StopReason): write nothing, say nothing."""

    def __init__(self, reason: StopReason) -> None:
        super().__init__(reason.value)
        self.reason = reason


@dataclass
class HeldJob:
    job: Job
    claimed_at: float | None = None
    """When the claim of this attempt returned (wall clock: the metrics time claim-to-done)."""
    lease_ends_at: float = math.inf
    """Monotonic: the lease's end by the conservative local estimate (see the module)."""
    needs_until: float = 0.0
    """Monotonic: a send under way needs the lease until then; renewals keep at least that."""
    running: asyncio.Future[Any] | None = None
    """The handler or hook the attempt is waiting for right now."""
    stopped: StopReason | None = None
    let_go: bool = False
    """Its finishing write landed: the row is no longer held, yet what the attempt said on its
    way out (its log message's last edit) is still its own to deliver."""

    def stop(self, reason: StopReason) -> None:
        """End the attempt now: its task is cancelled, and every later check of its fence fails."""
        # A lost lease outweighs a cancel: nothing may be written then.
        if (self.stopped is None or reason is StopReason.LOST) and not self.let_go:
            self.stopped = reason
        if self.running is not None:
            self.running.cancel()

    def renewed(self, sent_at: float, lease_seconds: float) -> None:
        """A renewal sent at `sent_at` landed (renewals of one process never overlap, so the
        latest one to land is the latest sent)."""
        self.lease_ends_at = sent_at + lease_seconds


class InFlight:
    def __init__(self) -> None:
        self._held: dict[int, HeldJob] = {}

    def __len__(self) -> int:
        return len(self._held)

    def hold(self, job: Job, claimed_at: float, lease_ends_at: float = math.inf) -> HeldJob:
        held = self._held[job.id] = HeldJob(job, claimed_at, lease_ends_at)
        return held

    def held(self, job: Job) -> HeldJob:
        return self._held[job.id]

    def find(self, lease: Lease) -> HeldJob | None:
        held = self._held.get(lease.job_id)
        return held if held is not None and held.job.token == lease.token else None

    def all(self) -> list[HeldJob]:
        return list(self._held.values())

    def claimed_at(self, job: Job) -> float | None:
        held = self.find(job.lease)
        return held.claimed_at if held is not None else None

    def drop(self, job: Job) -> None:
        held = self.find(job.lease)
        if held is not None:
            held.let_go = held.stopped is None
            del self._held[job.id]

    def leases(self) -> list[Lease]:
        return [held.job.lease for held in self._held.values()]

    def landed(self, lease: Lease) -> None:
        """A finishing write of `lease` landed: the row was still its own, whatever the lease watch
        feared; what the attempt says on its way out may go (HeldJob.let_go). From now on the row
        is gone or someone else's to claim, so a heartbeat that meanwhile finds it "lost" (its
        renewal changes nothing) must not silence those last words: let_go is set at once, not
        at the drop (a busy machine can put a beat between the two)."""
        held = self.find(lease)
        if held is None:
            return
        if held.stopped is StopReason.EXPIRED:
            held.stopped = None
        if held.stopped is None:
            held.let_go = True

    def stop(self, lease: Lease, reason: StopReason) -> HeldJob | None:
        """Stop the attempt holding `lease`, if this process runs it (see HeldJob.stop)."""
        held = self.find(lease)
        if held is not None:
            held.stop(reason)
        return held
