"""Settling an attempt: the lifecycle's effect written through the store, whatever the store does.

Finishing writes are fenced by the claim's token, so trying one again is always safe: each is
retried (jittered, capped backoff) until it lands, or the process stops. A write the store
answers with "not held" means another claim took the row over: nothing changed, and that is
logged. The row stays held by this process (and renewed by the heartbeat) until its write landed.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TypeVar

from core.jobs.attempt import Deadlines
from core.jobs.backoff import Backoff
from core.jobs.fields import log_fields
from core.jobs.hooks import CancelledJob, DeadJob
from core.jobs.in_flight import HeldJob, InFlight, StopReason
from core.jobs.outcome import INTERNAL, JobFailure
from core.jobs.registry import JobType
from core.jobs.signals import Signal
from core.jobs.store_health import StoreHealth
from core.lifecycle.effects import Complete, DeadLetter, Effect, Release, ScheduleRetry
from ports.clock import Clock
from ports.errors import StoreRefused
from ports.jobs import Job
from ports.queue import JobQueue
from ports.telemetry import JobEvents

log = logging.getLogger("vidrelay.engine")
T = TypeVar("T")


class Settler:
    def __init__(
        self,
        *,
        queue: JobQueue,
        clock: Clock,
        in_flight: InFlight,
        finished: Signal,
        events: JobEvents,
        health: StoreHealth,
        deadlines: Deadlines,
        new_backoff: Callable[[], Backoff],
    ) -> None:
        """`finished` fires whenever a job of this process let go of its row (a suspect next in
        line may run now)."""
        self._queue = queue
        self._clock = clock
        self._in_flight = in_flight
        self._finished = finished
        self._events = events
        self._health = health
        self._deadlines = deadlines
        self._new_backoff = new_backoff
        self.stats: Counter[str] = Counter()
        """Outcomes since start (completed, retried, dead_lettered), for the metrics endpoint."""

    async def apply(
        self, job: Job, effect: Effect, job_type: JobType | None, failure: JobFailure | None = None
    ) -> None:
        try:
            match effect:
                case Complete():
                    await self._complete(job, counted=failure is None)
                case ScheduleRetry(available_at=at):
                    await self._retry(job, at, failure)
                case Release(available_at=at, deferred=deferred):
                    if await self._persist(job, "release", lambda: self._queue.release(job.lease, at)):
                        self._released(job, at, deferred=deferred)
                case DeadLetter(error=error):
                    await self._bury(job, error, job_type, failure)
        finally:
            self.let_go(job)

    def _released(self, job: Job, at: float, *, deferred: bool) -> None:
        if deferred:  # routine in a busy chat: its video waits for the chat's turn, not a worker
            log.info("job deferred for %.1fs", max(at - self._clock.now(), 0.0), extra=log_fields(job))
        else:
            log.info("job released: it runs again later", extra=log_fields(job))

    def let_go(self, job: Job) -> None:
        self._in_flight.drop(job)
        self._finished.fire()

    async def _complete(self, job: Job, *, counted: bool) -> None:
        if await self._persist(job, "completion", lambda: self._queue.complete(job.lease)) and counted:
            self.stats["completed"] += 1
            claimed_at = self._in_flight.claimed_at(job)
            took = self._clock.now() - claimed_at if claimed_at is not None else 0.0
            self._events.job_completed(job.name, took)
            log.info("job done", extra=log_fields(job))

    async def cancelled(self, job: Job, job_type: JobType) -> None:
        """Its user cancelled it and its attempt stopped: say so while the row is still held,
        then delete the row like a completion — not done, not a failure, not dead-lettered."""
        try:
            if job_type.on_cancel:
                await self._deadlines.hook(job_type.on_cancel(CancelledJob(job)), HeldJob(job), "on_cancel")
            if await self._persist(job, "cancellation", lambda: self._queue.complete(job.lease)):
                self.stats["cancelled"] += 1
                self._events.job_cancelled(job.name)
                log.info("job cancelled by its user", extra=log_fields(job))
        finally:
            self.let_go(job)

    async def _retry(self, job: Job, at: float, failure: JobFailure | None) -> None:
        error = error_text(failure) if failure else "retry"
        if await self._persist(job, "retry", lambda: self._queue.retry_later(job.lease, at, error)):
            self.stats["retried"] += 1
            self._events.job_retried(job.name)
            log.warning(
                "job failed, retry in %.1fs",
                max(at - self._clock.now(), 0.0),
                extra=log_fields(job, error=failure.reason if failure else None),
            )

    async def _bury(
        self, job: Job, reason: str, job_type: JobType | None, failure: JobFailure | None
    ) -> None:
        text = error_text(failure) if failure else str(reason)  # plain English for the row
        now = self._clock.now()
        if (
            await self._persist(job, "dead letter", lambda: self._queue.dead_letter(job.lease, text, now))
            is None
        ):
            return
        self.stats["dead_lettered"] += 1
        self._events.job_dead(job.name)
        # A link that is not a video, or gone, is the user's business; a job that killed its
        # process, or failed of a bug of ours, needs an operator.
        level = logging.WARNING if failure is not None and failure.code != INTERNAL else logging.ERROR
        log.log(level, "job dead-lettered", extra=log_fields(job, error=reason))
        if job_type and job_type.on_dead:
            held = HeldJob(job)  # the row is gone: this report no longer runs under its lease
            await self._deadlines.hook(job_type.on_dead(DeadJob(job, reason, failure)), held, "on_dead")

    async def _persist(self, job: Job, what: str, write: Callable[[], Awaitable[T]]) -> T:
        """`write()` until it lands; a falsy answer means the lease was lost (logged)."""
        backoff, tries = self._new_backoff(), 0
        while True:
            tries += 1
            try:
                landed = await self._health.write(write())
            except StoreRefused:
                raise  # no try can land (a damaged file): the engine stops instead
            except Exception:
                log.warning("job %s failed, trying again", what, exc_info=True, extra=log_fields(job))
                await self._clock.sleep(backoff.next())
                continue
            if landed:
                self._in_flight.landed(job.lease)
            else:
                self._in_flight.stop(job.lease, StopReason.LOST)
                # After a failed try this may also be that try having landed after all.
                log.warning(
                    "job lost its lease: its %s changed nothing%s",
                    what,
                    " (or an earlier try landed)" if tries > 1 else "",
                    extra=log_fields(job),
                )
            return landed


def error_text(failure: JobFailure) -> str:
    """What the store keeps: plain English text (a reason may be a phrase, core.texts.phrase)."""
    return str(failure.reason) if not failure.detail else f"{failure.reason}\n\n{failure.detail}"
