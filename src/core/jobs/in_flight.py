"""The jobs this process holds right now: what the heartbeat renews and what /status counts.

A job is held from the moment its claim returns until its finishing write landed, so the lease
covers the whole attempt: the run, the hooks and the write.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from ports.jobs import Job, Lease


class AttemptStopped(Exception):
    """The heartbeat stopped the attempt from outside: what it waited for was cancelled."""


class LostLease(AttemptStopped):
    """The row was taken over by another claim while this process ran it: stop, write nothing."""


class CancelledByUser(AttemptStopped):
    """The user cancelled the job (ports.cancels): stop, then settle it as done, not failed."""


@dataclass
class HeldJob:
    job: Job
    claimed_at: float | None = None
    """When the claim of this attempt returned (the metrics time claim-to-done from it)."""
    running: asyncio.Future[Any] | None = None
    """The handler or hook the attempt is waiting for right now."""
    stopped: type[AttemptStopped] | None = None
    """Why the heartbeat stopped the attempt: another claim took the row over, or the user
    cancelled the job. The attempt raises it once what it waited for has stopped."""


class InFlight:
    def __init__(self) -> None:
        self._held: dict[int, HeldJob] = {}

    def __len__(self) -> int:
        return len(self._held)

    def hold(self, job: Job, claimed_at: float) -> None:
        self._held[job.id] = HeldJob(job, claimed_at)

    def held(self, job: Job) -> HeldJob:
        return self._held[job.id]

    def claimed_at(self, job: Job) -> float | None:
        held = self._held.get(job.id)
        return held.claimed_at if held is not None and held.job.token == job.token else None

    def drop(self, job: Job) -> None:
        held = self._held.get(job.id)
        if held is not None and held.job.token == job.token:
            del self._held[job.id]

    def leases(self) -> list[Lease]:
        return [held.job.lease for held in self._held.values()]

    def lose(self, lease: Lease) -> HeldJob | None:
        """The row is no longer ours: stop the attempt (someone else may be running it)."""
        return self.stop(lease, LostLease)

    def stop(self, lease: Lease, why: type[AttemptStopped]) -> HeldJob | None:
        """Stop the attempt holding `lease` now, whatever it waits for; a lost lease outweighs
        a cancel (nothing may be written then)."""
        held = self._held.get(lease.job_id)
        if held is None or held.job.token != lease.token:
            return None
        if held.stopped is not LostLease:
            held.stopped = why
        if held.running is not None:
            held.running.cancel()
        return held
