"""The worker pool that runs durable jobs.

Handlers persist a row and return; `concurrency` workers claim rows (write-ahead attempts)
and run them. A transient failure is persisted as the row's `available_at`, so a backing-off
job never blocks a worker and a restart keeps its schedule. Idle workers sleep until the
next row is due or an enqueue wakes them — never a busy poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import traceback
from collections import Counter
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from returns.result import Failure, Success

from core.jobs.breaker import CircuitBreakers
from core.jobs.registry import (
    DeadJob,
    Deferred,
    JobContext,
    JobFailure,
    JobOutcome,
    JobRegistry,
    JobType,
    RetryNotice,
)
from core.lifecycle import DeadLetter, Failed, Random, RetryPolicy, decide_after_failure
from core.telemetry import Unobserved
from ports.clock import Clock
from ports.errors import ShutdownAbort
from ports.jobs import Guard, Job, NewJob, SingletonGuard
from ports.json import Payload
from ports.queue import JobQueue
from ports.telemetry import JobEvents

log = logging.getLogger("vidrelay.engine")


@dataclass(frozen=True, slots=True)
class EngineConfig:
    concurrency: int = 3
    max_attempts: int = 3
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    lease_margin_seconds: float = 60.0
    max_idle_seconds: float = 30.0
    """Safety net for rows enqueued by another process (the CLI); in-process enqueues wake at once."""
    recover_leases_on_boot: bool = True
    """True when this process is the only worker (SQLite): every lease at boot is a dead one."""


class Engine:
    def __init__(
        self,
        store: JobQueue,
        clock: Clock,
        registry: JobRegistry,
        config: EngineConfig,
        random: Random,
        worker_id: str,
        breakers: CircuitBreakers | None = None,
        events: JobEvents | None = None,
    ) -> None:
        self._store = store
        self._clock = clock
        self._registry = registry
        self._config = config
        self._random = random
        self._worker_id = worker_id
        self.breakers = breakers or CircuitBreakers()
        self._events: JobEvents = events or Unobserved()
        self._claimed_at: dict[int, float] = {}
        """When each succeeded job awaiting its row's deletion was claimed (claim-to-done time)."""
        self._wake = asyncio.Event()
        self._stopping = asyncio.Event()
        self._workers: list[asyncio.Task[None]] = []
        self._tickers: list[asyncio.Task[None]] = []
        self._running: dict[int, asyncio.Future[JobOutcome]] = {}
        self.stats: Counter[str] = Counter()
        """Outcomes since start (completed, retried, dead_lettered), for the metrics endpoint."""
        self._lease = config.lease_margin_seconds

    # Producing -------------------------------------------------------------------------

    async def enqueue(self, job: NewJob, guard: Guard | None = None) -> int | None:
        job_id = await self._store.enqueue(job, self._clock.now(), guard)
        if job_id is not None:
            self._events.job_enqueued(job.name)
            self.wake()
        return job_id

    async def submit(
        self,
        name: str,
        payload: Payload,
        *,
        key: str = "",
        owner_id: int | None = None,
        guard: Guard | None = None,
    ) -> int | None:
        """Enqueue a registered job type with its own attempt budget; None if the guard refused."""
        return await self.enqueue(self.new_job(name, payload, key=key, owner_id=owner_id), guard)

    def new_job(self, name: str, payload: Payload, *, key: str = "", owner_id: int | None = None) -> NewJob:
        job_type = self._registry.get(name)
        if job_type is None:
            raise KeyError(f"no job type is registered as {name!r}")
        return NewJob(name, payload, self._max_attempts(job_type), key=key, owner_id=owner_id)

    def wake(self) -> None:
        """An enqueue (or a closed breaker) may have made work claimable: wake idle workers."""
        self._wake.set()
        self._wake = asyncio.Event()

    def close_breakers(self) -> None:
        if self.breakers.close_all():
            self.wake()

    def job_names(self) -> list[str]:
        return self._registry.names()

    @property
    def in_flight(self) -> int:
        return len(self._running)

    @property
    def worker_count(self) -> int:
        """Worker tasks the engine has while it runs."""
        return self._config.concurrency

    @property
    def live_workers(self) -> int:
        return sum(1 for worker in self._workers if not worker.done())

    # Lifecycle ---------------------------------------------------------------------------

    async def start(self) -> int:
        """Boot: dead-letter jobs that used up their attempts, then start workers and tickers.

        Returns how many jobs gave up at this boot.
        """
        longest = max((t.timeout_seconds for t in self._registry.all()), default=0.0)
        self._lease = longest + self._config.lease_margin_seconds
        if self._config.recover_leases_on_boot:
            await self._store.recover(self._worker_id)
        gave_up = await self._bury_exhausted()
        log.warning("boot: %d job(s) gave up at this boot", gave_up)
        self._workers = [
            asyncio.create_task(self._work(n), name=f"vidrelay-worker-{n}")
            for n in range(self._config.concurrency)
        ]
        self._tickers = [
            asyncio.create_task(self._tick(t), name=f"vidrelay-tick-{t.name}")
            for t in self._registry.periodic()
        ]
        return gave_up

    async def stop(self, grace_seconds: float) -> None:
        """Stop claiming; let in-flight jobs finish for `grace_seconds`, then cancel them.

        Cancelled jobs are released with their attempt refunded: the rows wait for the next boot.
        """
        self._stopping.set()
        self.wake()
        for ticker in self._tickers:
            ticker.cancel()
        await _settle(self._tickers)
        # Every worker is let go on its own first, idle ones too: one in the middle of a claim or
        # of deleting a finished job's row must finish that step, or a claimed job would keep a
        # spent attempt and a delivered one would run again.
        await _first_of(_all_done(list(self._workers)), self._clock.sleep(grace_seconds))
        for worker in self._workers:
            worker.cancel()
        await _settle(self._workers)
        self._workers, self._tickers = [], []

    # Workers -----------------------------------------------------------------------------

    async def _work(self, number: int) -> None:
        succeeded: Job | None = None
        while not self._stopping.is_set():
            wake = self._wake
            try:
                job = await self._complete_and_claim(succeeded)
            except Exception:
                log.exception("worker %d: claim failed", number)
                await _first_of(self._clock.sleep(1.0), self._stopping.wait())
                continue
            finally:
                succeeded = None
            if job is None:
                await self._idle(wake)
            else:
                succeeded = await self._process(job)
        if succeeded is not None:
            await self._complete(succeeded)

    async def _complete_and_claim(self, succeeded: Job | None) -> Job | None:
        """Delete the row of the job that just succeeded, and claim the next one, in one round trip.

        Both reach the store together, so a store that groups its commits (SQLite) commits them
        in one transaction, the deletion first; the job counts as done only once its deletion is
        committed. Halves the commits per job on the hot path without changing what is written.
        """
        if succeeded is None:
            return await self._claim()
        # The claim's task takes its first step before the store runs the deletion just submitted
        # by the await below, so both are in the store's hands at once (deletion first).
        claiming = asyncio.ensure_future(self._claim())
        try:
            await self._complete(succeeded)
        except BaseException:
            claiming.cancel()
            await _settle([claiming])
            raise
        return await claiming

    async def _claim(self) -> Job | None:
        now = self._clock.now()
        return await self._store.claim(
            self._worker_id, now, self._lease_seconds(), self.breakers.paused_keys(now)
        )

    async def _idle(self, wake: asyncio.Event) -> None:
        now = self._clock.now()
        due = await self._store.next_wakeup(self._worker_id, now, self.breakers.paused_keys(now))
        times = [t for t in (due, self.breakers.next_reopening()) if t is not None]
        delay = min([t - now for t in times] + [self._config.max_idle_seconds])
        if delay > 0:
            await _first_of(wake.wait(), self._stopping.wait(), self._clock.sleep(delay))

    async def _process(self, job: Job) -> Job | None:
        """Run one claimed job; returns it when it succeeded and its row is still to be deleted."""
        job_type = self._registry.get(job.name)
        if job_type is None:
            await self._bury(job, f"unknown job name {job.name!r}: no handler is registered", None)
            return None
        if job.attempts > job.max_attempts:  # claimed once more than it may run: give up
            await self._give_up(job, job_type)
            return None
        if self._stopping.is_set():
            await self._store.release(job.lease, self._clock.now())
            return None
        log.info("job started", extra=_log_fields(job))
        claimed_at = self._clock.now()

        async def save(payload: Payload) -> None:
            await self._store.update_payload(job.lease, payload)

        context = JobContext(job, save)
        task = asyncio.ensure_future(self._run_attempt(job_type, context))
        self._running[job.id] = task
        try:
            outcome = await task
        except asyncio.CancelledError:
            await self._abandon(job, task)
            raise
        except ShutdownAbort:
            await self._abandon(job, task)
            return None
        finally:
            self._running.pop(job.id, None)
        succeeded = await self._settle_outcome(job, job_type, context, outcome)
        if succeeded is not None:
            self._claimed_at[job.id] = claimed_at
        return succeeded

    async def _abandon(self, job: Job, task: asyncio.Future[JobOutcome]) -> None:
        """Shutdown: kill the attempt, refund it, keep the row for the next boot."""
        task.cancel()
        await _settle([task])
        with contextlib.suppress(Exception):
            await self._store.release(job.lease, self._clock.now())
        log.warning("job released at shutdown", extra=_log_fields(job))

    async def _run_attempt(self, job_type: JobType, context: JobContext) -> JobOutcome:
        try:
            result = await _first_of(job_type.run(context), self._clock.sleep(job_type.timeout_seconds))
        except ShutdownAbort:
            raise
        except Exception as error:  # noqa: BLE001 - a bug in one job must not kill the worker
            return Failure(JobFailure(f"internal error: {error}", detail=traceback.format_exc()))
        if result is None:
            return Failure(JobFailure(f"Timed out after {job_type.timeout_seconds:g} seconds"))
        outcome: JobOutcome = result
        return outcome

    async def _settle_outcome(
        self, job: Job, job_type: JobType, context: JobContext, outcome: JobOutcome
    ) -> Job | None:
        """Act on a finished attempt. A succeeded job is handed back: its row is deleted together
        with the worker's next claim (see _complete_and_claim). A deferred one goes back to the
        queue, its attempt refunded."""
        fields = _log_fields(job)
        match outcome:
            case Success(Deferred(until=until)):
                await self._store.release(job.lease, until)
                log.info("job deferred for %.1fs", until - self._clock.now(), extra=fields)
            case Success():
                self.breakers.record_success(job.key)
                return job
            case Failure(failure) if job_type.interval_seconds:
                await self._store.complete(job.lease)
                log.warning("periodic job failed: %s", failure.reason, extra=fields)
            case Failure(failure):
                await self._after_failure(job, job_type, context, failure)
        return None

    async def _complete(self, job: Job) -> None:
        claimed_at = self._claimed_at.pop(job.id, None)
        try:
            await self._store.complete(job.lease)
        except Exception:
            # Contained like a failed claim: the row keeps its lease and runs again (at least once).
            log.exception("job done, but its row could not be deleted", extra=_log_fields(job))
            return
        self.stats["completed"] += 1
        self._events.job_completed(job.name, self._clock.now() - claimed_at if claimed_at else 0.0)
        log.info("job done", extra=_log_fields(job))

    async def _after_failure(
        self, job: Job, job_type: JobType, context: JobContext, failure: JobFailure
    ) -> None:
        now = self._clock.now()
        not_before = now + failure.retry_after if failure.retry_after else 0.0
        event = Failed(failure.reason, failure.permanent, now, not_before)
        decision = decide_after_failure(
            job.attempts, job.max_attempts, event, self._config.retry, self._random
        )
        if not failure.permanent and self.breakers.record_failure(job.key, now, job.id) is not None:
            log.warning("circuit breaker opened for %s", job.key, extra=_log_fields(job))
        if isinstance(decision, DeadLetter):
            job = _with_payload(job, context.payload)
            await self._bury(job, failure.reason, job_type, failure)
            return
        if job_type.on_retry:
            # Before the row is claimable again, so what the hook saves is there for the retry.
            await _contained(job_type.on_retry(RetryNotice(context, failure, job.attempts + 1)), job)
        await self._store.retry_later(job.lease, decision.available_at, _error_text(failure))
        self.stats["retried"] += 1
        self._events.job_retried(job.name)
        log.warning(
            "job failed, retry in %.1fs: %s",
            decision.available_at - now,
            failure.reason,
            extra=_log_fields(job),
        )

    async def _bury(
        self, job: Job, reason: str, job_type: JobType | None, failure: JobFailure | None = None
    ) -> None:
        text = _error_text(failure) if failure else reason
        if await self._store.dead_letter(job.lease, text, self._clock.now()) is None:
            return
        self.stats["dead_lettered"] += 1
        self._events.job_dead(job.name)
        log.error("job dead-lettered: %s", reason, extra=_log_fields(job))
        if job_type and job_type.on_dead:
            await _contained(job_type.on_dead(DeadJob(job, reason, failure)), job)

    async def _bury_exhausted(self) -> int:
        gave_up = 0
        now = self._clock.now()
        for job in await self._store.claim_exhausted(self._worker_id, now, self._lease_seconds()):
            gave_up += await self._give_up(job, self._registry.get(job.name))
        return gave_up

    async def _give_up(self, job: Job, job_type: JobType | None) -> int:
        """A job whose attempts were spent by dying processes. A periodic one is just dropped:
        its next tick runs it again, and a dead letter would be noise."""
        if job_type is not None and job_type.interval_seconds:
            await self._store.complete(job.lease)
            log.warning("periodic job dropped after its process died", extra=_log_fields(job))
            return 0
        await self._bury(job, _gave_up(job), job_type)
        return 1

    async def _tick(self, job_type: JobType) -> None:
        interval = job_type.interval_seconds or 0.0
        while True:
            try:
                job = NewJob(job_type.name, {}, max_attempts=1)
                await self.enqueue(job, SingletonGuard())
            except Exception:
                log.exception("periodic enqueue of %s failed", job_type.name)
            await self._clock.sleep(interval)

    def _lease_seconds(self) -> float:
        return self._lease

    def _max_attempts(self, job_type: JobType) -> int:
        return job_type.max_attempts or self._config.max_attempts


def _gave_up(job: Job) -> str:
    return f"gave up after {job.max_attempts} attempts: the process died while running it"


def _error_text(failure: JobFailure) -> str:
    return failure.reason if not failure.detail else f"{failure.reason}\n\n{failure.detail}"


def _with_payload(job: Job, payload: Payload) -> Job:
    return replace(job, payload=payload)


def _log_fields(job: Job) -> dict[str, Any]:
    chat = job.payload.get("chat_id")
    return {"job_id": job.id, "job_name": job.name, "chat_id": chat, "attempt": job.attempts}


async def _contained(hook: Awaitable[None], job: Job) -> None:
    """A reporting hook must never take the worker down with it."""
    try:
        await hook
    except Exception:
        log.exception("job hook failed", extra=_log_fields(job))


async def _first_of(*aws: Awaitable[Any]) -> Any:
    """Await the first of `aws` to finish and cancel the rest; the first one's result, or None.

    The first awaitable is the one whose result matters; the others are deadlines or signals.
    Every task is finished before this returns, so a cancelled attempt has cleaned up (killed
    its child process) by the time the caller goes on.
    """
    tasks = [asyncio.ensure_future(a) for a in aws]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await _settle(tasks)
    main = tasks[0]
    return main.result() if main in done else None


async def _all_done(tasks: list[asyncio.Task[None]]) -> None:
    await asyncio.gather(*[asyncio.shield(t) for t in tasks], return_exceptions=True)


async def _settle(tasks: Sequence[asyncio.Future[Any]]) -> None:
    for task in tasks:
        with contextlib.suppress(BaseException):
            await task
