"""One worker slot: claim, run, settle, again; idle until there is work; never die of an error.

A store or handler error is logged and backed off from (jittered, capped); the loop goes on. A
job that succeeded hands its row back together with the next claim, so a store that groups its
commits (SQLite) writes both in one transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import replace

from returns.result import Failure, Success

from core.jobs.attempt import Deadlines
from core.jobs.fields import log_fields
from core.jobs.in_flight import HeldJob, LostLease
from core.jobs.parts import EngineParts
from core.jobs.registry import (
    INTERNAL,
    Deferred,
    JobContext,
    JobFailure,
    JobOutcome,
    JobType,
    RetryNotice,
)
from core.jobs.settling import Settler
from core.jobs.tasks import first_of, settle
from core.lifecycle.effects import Complete, Effect, Run, ScheduleRetry
from core.lifecycle.events import Claimed, Event, Failed, Rejected, Released, Succeeded
from core.lifecycle.state import JobState
from core.lifecycle.step import step
from ports.errors import ShutdownAbort
from ports.jobs import Job
from ports.json import Payload

log = logging.getLogger("vidrelay.engine")


class Worker:
    def __init__(self, parts: EngineParts, settler: Settler, deadlines: Deadlines, number: int) -> None:
        self._p = parts
        self._settler = settler
        self._deadlines = deadlines
        self._number = number
        self._errors = parts.backoff()
        self._nothing_claimed = parts.backoff()

    async def run(self) -> None:
        done: Job | None = None  # succeeded: its row goes back with the next claim
        while not self._p.stopping.is_set():
            woken, finished = self._p.wake.waiter(), self._p.finished.waiter()
            try:
                job = await self._complete_and_claim(done)
                done = None
                if job is None:
                    await self._idle(woken, finished)
                else:
                    self._nothing_claimed.reset()
                    done = await self._process_contained(job)
                self._errors.reset()
            except Exception:
                log.exception("worker %d: the store failed; backing off", self._number)
                # An enqueue that landed meanwhile says the store takes writes again: go at once.
                pause = self._p.clock.sleep(self._errors.next())
                await first_of(pause, woken.wait(), self._p.stopping.wait())
        if done is not None:
            await self._settler.apply(done, Complete(), None)

    async def _complete_and_claim(self, done: Job | None) -> Job | None:
        if done is None:
            return await self._claim()
        # The claim's task takes its first step before the store runs the deletion submitted by
        # the await below, so both are in the store's hands at once (the deletion first).
        claiming = asyncio.ensure_future(self._claim())
        try:
            await self._settler.apply(done, Complete(), None)
        except BaseException:
            claiming.cancel()
            await settle([claiming])
            raise
        return await claiming

    async def _claim(self) -> Job | None:
        p = self._p
        now = p.clock.now()
        # A claim cancelled mid-way (a stop past its grace) may have committed unseen: its row
        # is let go by a later heartbeat (or boot), like any claim whose answer was lost.
        job = await p.store_write(
            p.queue.claim(p.worker_id, now, p.config.lease_seconds, p.breakers.paused_keys(now))
        )
        if job is not None:
            p.in_flight.hold(job, now)
        return job

    async def _idle(self, woken: asyncio.Event, finished: asyncio.Event) -> None:
        p = self._p
        now = p.clock.now()
        due = await p.queue.next_wakeup(p.worker_id, now, p.breakers.paused_keys(now))
        times = [t for t in (due, p.breakers.next_reopening()) if t is not None]
        delay = min([t - now for t in times] + [p.config.max_idle_seconds])
        if delay <= 0:
            # Due, yet nothing was claimable for us: a suspect waits for this process to drain,
            # or another process just took it. Wait for a job of ours to finish, briefly.
            delay = min(self._nothing_claimed.next(), p.config.max_idle_seconds)
        await first_of(woken.wait(), finished.wait(), p.stopping.wait(), p.clock.sleep(delay))

    async def _process_contained(self, job: Job) -> Job | None:
        try:
            return await self._process(job)
        except Exception as error:
            # A bug of ours, not the job's: charge the attempt and let the row go, so the job
            # retries (and is buried once spent) instead of staying held by this process.
            log.exception("worker %d: processing the job failed", self._number, extra=log_fields(job))
            failure = JobFailure(f"internal error: {error}", code=INTERNAL)
            retry = ScheduleRetry(self._p.clock.now() + self._errors.next(), failure.reason)
            await self._settler.apply(job, retry, None, failure)
            return None

    async def _process(self, job: Job) -> Job | None:
        """Run one claimed job; returns it when it succeeded and its row is still to be deleted."""
        p = self._p
        job_type = p.registry.get(job.name)
        state = JobState.before_claim(job, periodic=bool(job_type and job_type.interval_seconds))
        event: Event = (
            Claimed() if job_type else Rejected(f"unknown job name {job.name!r}: no handler is registered")
        )
        state, effect = step(state, event, p.config.retry, p.random)
        if not isinstance(effect, Run) or job_type is None:
            await self._settler.apply(job, effect, job_type)
            return None
        if p.stopping.is_set():
            await self._settler.apply(
                job, step(state, Released(p.clock.now()), p.config.retry, p.random)[1], job_type
            )
            return None
        return await self._attempt(job, job_type, state)

    async def _attempt(self, job: Job, job_type: JobType, state: JobState) -> Job | None:
        p = self._p
        log.info("job started", extra=log_fields(job))

        async def save(payload: Payload) -> None:
            await p.queue.update_payload(job.lease, payload)

        context = JobContext(job, save)
        held = p.in_flight.held(job)
        try:
            effect, failure = await self._run_and_report(job, job_type, state, context, held)
        except LostLease:
            log.warning("job lost its lease: its attempt was stopped", extra=log_fields(job))
            self._settler.let_go(job)
            return None
        except asyncio.CancelledError:
            await self._abandon(job)
            raise
        if isinstance(effect, Complete) and failure is None:
            return job
        # What the attempt learned (its log message) is what the 💥 report edits.
        await self._settler.apply(replace(job, payload=context.payload), effect, job_type, failure)
        return None

    async def _run_and_report(
        self, job: Job, job_type: JobType, state: JobState, context: JobContext, held: HeldJob
    ) -> tuple[Effect, JobFailure | None]:
        """The attempt itself, under the lease: the run, the decision, the retry report."""
        p = self._p
        try:
            outcome: JobOutcome | None = await self._deadlines.run(job_type, context, held)
        except ShutdownAbort:
            outcome = None
        now = p.clock.now()
        failure: JobFailure | None = None
        match outcome:
            case None:
                event: Event = Released(now)
            case Success(Deferred(until=until)):
                event = Released(until, deferred=True)  # neither a success nor a failure of its site
            case Success():
                p.breakers.record_success(job.key)
                event = Succeeded()
            case Failure(failure):
                not_before = now + failure.retry_after if failure.retry_after else 0.0
                event = Failed(failure.reason, failure.permanent, now, not_before)
                if not failure.permanent and p.breakers.record_failure(job.key, now, job.id) is not None:
                    log.warning("circuit breaker opened for %s", job.key, extra=log_fields(job))
        _, effect = step(state, event, p.config.retry, p.random)
        if isinstance(effect, Complete) and failure is not None:
            log.warning("periodic job failed", extra=log_fields(job, error=failure.reason))
        if isinstance(effect, ScheduleRetry) and job_type.on_retry and failure is not None:
            # Before the row is claimable again, so what the hook saves is there for the retry.
            notice = RetryNotice(context, failure, job.attempts + 1)
            await self._deadlines.hook(job_type.on_retry(notice), held, "on_retry")
        return effect, failure

    async def _abandon(self, job: Job) -> None:
        """Shutdown past its grace (the handler was stopped): refund the attempt, keep the row for
        the next boot."""
        with contextlib.suppress(Exception):  # one try: the process is going away
            await self._p.queue.release(job.lease, self._p.clock.now())
        self._settler.let_go(job)
        log.info("job released at shutdown", extra=log_fields(job))
