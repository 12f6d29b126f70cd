"""One worker slot: claim, run, settle, again; idle until there is work; never die of an error.

A store or handler error is logged and backed off from (jittered, capped); the loop goes on. A
job that succeeded hands its row back together with the next claim, so a store that groups its
commits (SQLite) writes both in one transaction. While its jobs are short, the worker claims
several at once (ahead.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from core import texts
from core.jobs.ahead import ClaimAhead
from core.jobs.backoff import Backoff
from core.jobs.claims import Claims
from core.jobs.fields import log_fields
from core.jobs.outcome import INTERNAL, JobFailure
from core.jobs.running import Attempts
from core.jobs.settling import Settler
from core.jobs.signals import Signal
from core.jobs.tasks import first_of, settle
from core.lifecycle.effects import Complete, ScheduleRetry
from core.texts.phrase import Phrase
from ports.clock import Clock
from ports.errors import StoreRefused
from ports.jobs import Job

log = logging.getLogger("vidrelay.engine")


class Worker:
    def __init__(
        self,
        number: int,
        *,
        claims: Claims,
        attempts: Attempts,
        settler: Settler,
        clock: Clock,
        wake: Signal,
        finished: Signal,
        stopping: asyncio.Event,
        max_idle_seconds: float,
        new_backoff: Callable[[], Backoff],
        quick_only: bool = False,
        claim_ahead: int = 1,
        short_seconds: float = 0.0,
    ) -> None:
        """`wake`: work may be claimable (an enqueue, a closed breaker); `finished`: a job of this
        process let go of its row; `stopping`: the engine stops claiming; `quick_only`: the quick
        lane's worker, which takes only quick rows and waits for an enqueue's wake between them;
        `claim_ahead`: how many jobs a claim ahead takes once jobs are shorter than
        `short_seconds` (1: never; never on the quick lane)."""
        self._number = number
        self._claims = claims
        self._attempts = attempts
        self._settler = settler
        self._clock = clock
        self._wake = wake
        self._finished = finished
        self._stopping = stopping
        self._max_idle = max_idle_seconds
        self._quick_only = quick_only
        self._errors = new_backoff()
        self._nothing_claimed = new_backoff()
        self._ahead = ClaimAhead(
            claims=claims,
            clock=clock,
            give_back=attempts.give_back,
            complete=lambda job: settler.apply(job, Complete(), None),
            size=1 if quick_only else claim_ahead,
            short_seconds=short_seconds,
        )

    async def run(self) -> None:
        try:
            await self._loop()
        except asyncio.CancelledError:
            self._ahead.abandon()  # a stop past its grace: the process is going away
            raise

    async def _loop(self) -> None:
        done: Job | None = None  # succeeded: its row goes back with the next claim
        while not self._stopping.is_set():
            woken, finished = self._wake.waiter(), self._finished.waiter()
            try:
                # Its deletion is written (or the store refused, and the engine stops) before
                # `_next` raises for anything else: it is never written twice.
                last, done = done, None
                job = await self._next(last)
                if job is None:
                    await self._idle(woken, finished)
                else:
                    self._nothing_claimed.reset()
                    done = await self._run(job)
                self._errors.reset()
            except StoreRefused:
                return  # the store is damaged: the engine stops (it said why, once)
            except Exception:
                log.exception("worker %d: the store failed; backing off", self._number)
                # An enqueue that landed meanwhile says the store takes writes again: go at once.
                pause = self._clock.sleep(self._errors.next())
                await first_of(pause, woken.wait(), self._stopping.wait())
        if done is not None:
            await self._settler.apply(done, Complete(), None)
        await self._ahead.finish()

    async def _next(self, done: Job | None) -> Job | None:
        if self._ahead.holding:
            job = await self._ahead.next(done)
            if job is not None:
                return job
            done = None  # its deletion is on its way
        return await self._complete_and_claim(done)

    async def _run(self, job: Job) -> Job | None:
        started = self._clock.monotonic()
        self._ahead.running(started)
        try:
            done = await self._process_contained(job)
        finally:
            self._ahead.running(None)
        self._ahead.keep_up(self._clock.monotonic() - started)
        return done

    async def _complete_and_claim(self, done: Job | None) -> Job | None:
        if done is None:
            return await self._claims.claim(quick_only=self._quick_only)
        # The claim's task takes its first step before the store runs the deletion submitted by
        # the await below, so both are in the store's hands at once (the deletion first).
        claiming = asyncio.ensure_future(self._claims.claim(quick_only=self._quick_only))
        try:
            await self._settler.apply(done, Complete(), None)
        except BaseException:
            claiming.cancel()
            await settle([claiming])
            raise
        return await claiming

    async def _idle(self, woken: asyncio.Event, finished: asyncio.Event) -> None:
        now = self._clock.now()
        # Quick rows are due when enqueued (their wake comes then); a retry of one is due for the
        # other workers too, which take quick rows first.
        due = None if self._quick_only else await self._claims.next_due(now)
        delay = min(due - now, self._max_idle) if due is not None else self._max_idle
        if delay <= 0:
            # Due, yet nothing was claimable for us: a suspect waits for this process to drain,
            # or another process just took it. Wait for a job of ours to finish, briefly.
            delay = min(self._nothing_claimed.next(), self._max_idle)
        signals = [woken.wait(), self._stopping.wait()]
        if not self._quick_only:
            # A job letting go of its row makes no quick row claimable for the quick lane (which
            # takes no suspect and waits for none): the other workers' claims see to that.
            signals.append(finished.wait())
        await first_of(*signals, self._clock.sleep(delay))

    async def _process_contained(self, job: Job) -> Job | None:
        try:
            return await self._attempts.process(job)
        except Exception as error:
            # A bug of ours, not the job's: charge the attempt and let the row go, so the job
            # retries (and is buried once spent) instead of staying held by this process.
            log.exception("worker %d: processing the job failed", self._number, extra=log_fields(job))
            failure = JobFailure(Phrase(texts.INTERNAL_ERROR, error=str(error)), code=INTERNAL)
            retry = ScheduleRetry(self._clock.now() + self._errors.next(), failure.reason)
            await self._settler.apply(job, retry, None, failure)
            return None
