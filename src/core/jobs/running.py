"""One claimed job, from its claim to its settling: the lifecycle's step decides, the attempt
runs under its deadline and its lease, the retry hook reports, the settler writes the effect.

A job that succeeded is handed back unsettled: the worker deletes its row together with its
next claim, so a store that groups its commits (SQLite) writes both in one transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import replace

from returns.result import Failure, Success

from core.jobs.attempt import Deadlines
from core.jobs.breaker import CircuitBreakers
from core.jobs.context import JobContext
from core.jobs.fence import Fence, Reserve
from core.jobs.fields import log_fields
from core.jobs.hooks import RetryNotice
from core.jobs.in_flight import AttemptStopped, HeldJob, InFlight, StopReason
from core.jobs.outcome import Deferred, JobFailure, JobOutcome
from core.jobs.registry import JobRegistry, JobType
from core.jobs.settling import Settler
from core.jobs.submitter import JobSubmitter
from core.lifecycle.effects import Complete, Effect, Run, ScheduleRetry
from core.lifecycle.events import Claimed, Event, Failed, Rejected, Released, Succeeded
from core.lifecycle.retry_policy import Random, RetryPolicy
from core.lifecycle.state import JobState
from core.lifecycle.step import step
from ports.clock import Clock
from ports.errors import ShutdownAbort
from ports.jobs import Job
from ports.json import Payload
from ports.queue import JobQueue

log = logging.getLogger("vidrelay.engine")


class Attempts:
    def __init__(
        self,
        *,
        queue: JobQueue,
        clock: Clock,
        registry: JobRegistry,
        retry: RetryPolicy,
        random: Random,
        breakers: CircuitBreakers,
        in_flight: InFlight,
        deadlines: Deadlines,
        settler: Settler,
        jobs: JobSubmitter,
        stopping: asyncio.Event,
        reserve: Reserve,
        lease_margin_seconds: float,
    ) -> None:
        """`jobs`: handed to every attempt, for the jobs it enqueues; `stopping`: set once the
        engine stops claiming (a job claimed meanwhile goes back unrun); `reserve` and
        `lease_margin_seconds`: what each attempt's fence renews through and asks for."""
        self._queue = queue
        self._clock = clock
        self._registry = registry
        self._retry = retry
        self._random = random
        self._breakers = breakers
        self._in_flight = in_flight
        self._deadlines = deadlines
        self._settler = settler
        self._jobs = jobs
        self._stopping = stopping
        self._reserve = reserve
        self._margin = lease_margin_seconds

    async def process(self, job: Job) -> Job | None:
        """Run one claimed job; returns it when it succeeded and its row is still to be deleted."""
        return await self._process(job, run=not self._stopping.is_set())

    async def give_back(self, job: Job) -> None:
        """Let a claimed job go unrun, its attempt given back (one claimed ahead, see ahead.py);
        one that could not run anyway is settled as a run would have settled it."""
        await self._process(job, run=False)

    async def _process(self, job: Job, *, run: bool) -> Job | None:
        job_type = self._registry.get(job.name)
        state = JobState.before_claim(job, periodic=bool(job_type and job_type.interval_seconds))
        event: Event = (
            Claimed() if job_type else Rejected(f"unknown job name {job.name!r}: no handler is registered")
        )
        state, effect = self._step(state, event)
        if not isinstance(effect, Run) or job_type is None:
            await self._settler.apply(job, effect, job_type)
            return None
        if not run:
            await self._settler.apply(job, self._step(state, Released(self._clock.now()))[1], job_type)
            return None
        return await self._attempt(job, job_type, state)

    def _step(self, state: JobState, event: Event) -> tuple[JobState, Effect]:
        return step(state, event, self._retry, self._random)

    async def _attempt(self, job: Job, job_type: JobType, state: JobState) -> Job | None:
        log.info("job started", extra=log_fields(job))

        async def save(payload: Payload) -> None:
            await self._queue.update_payload(job.lease, payload)

        held = self._in_flight.held(job)
        fence = Fence(held, self._clock, margin_seconds=self._margin, reserve=self._reserve)
        context = JobContext(job, save, self._jobs, fence)
        try:
            effect, failure = await self._run_and_report(job, job_type, state, context, held)
        except AttemptStopped as stopped:
            if stopped.reason is StopReason.CANCELLED:  # the row is still ours: settle it as cancelled
                await self._settler.cancelled(replace(job, payload=context.payload), job_type)
                return None
            # Nothing to write: another claim may hold the row (a write would change nothing),
            # or the store cannot be reached; a row still ours comes back when its lease ends.
            log.warning("job's attempt was stopped", extra=log_fields(job, error=stopped.reason.value))
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
        try:
            outcome: JobOutcome | None = await self._deadlines.run(job_type, context, held)
        except ShutdownAbort:
            outcome = None
        failure = outcome.failure() if isinstance(outcome, Failure) else None
        _, effect = self._step(state, self._event(job, outcome))
        if isinstance(effect, Complete) and failure is not None:
            log.warning("periodic job failed", extra=log_fields(job, error=failure.reason))
        if isinstance(effect, ScheduleRetry) and job_type.on_retry and failure is not None:
            # Before the row is claimable again, so what the hook saves is there for the retry.
            notice = RetryNotice(context, failure, job.attempts + 1)
            await self._deadlines.hook(job_type.on_retry(notice), held, "on_retry")
        return effect, failure

    def _event(self, job: Job, outcome: JobOutcome | None) -> Event:
        """What the attempt's outcome is to the lifecycle; the site's breaker counts it."""
        now = self._clock.now()
        match outcome:
            case None:
                return Released(now)
            case Success(Deferred(until=until)):
                return Released(until, deferred=True)  # neither a success nor a failure of its site
            case Success():
                self._breakers.record_success(job.key)
                return Succeeded()
            case Failure(failure):
                if not failure.permanent and self._breakers.record_failure(job.key, now, job.id) is not None:
                    log.warning("circuit breaker opened for %s", job.key, extra=log_fields(job))
                not_before = now + failure.retry_after if failure.retry_after else 0.0
                return Failed(failure.reason, failure.permanent, now, not_before)
        raise AssertionError(f"not a job outcome: {outcome!r}")

    async def _abandon(self, job: Job) -> None:
        """Shutdown past its grace (the handler was stopped): refund the attempt, keep the row for
        the next boot."""
        with contextlib.suppress(Exception):  # one try: the process is going away
            await self._queue.release(job.lease, self._clock.now())
        self._settler.let_go(job)
        log.info("job released at shutdown", extra=log_fields(job))
