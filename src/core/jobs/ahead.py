"""Claiming ahead: while a worker's jobs are short, it claims several at once.

Every job's claim is committed before the job runs (the attempt is written ahead, so a job that
kills the process is charged for it). A worker claiming one job at a time therefore waits one
commit per job however short the job is, and a queue of short jobs runs at one job per worker
per commit. A worker whose last three jobs each took less than `short_seconds` claims `size`
jobs in one go instead, and the next `size` as soon as those arrive: their commit overlaps the
run of these, and one commit carries several jobs' claims and completions.

What it must not cost:
- A job held ahead never waits behind a long one: once the running job takes longer than
  `short_seconds`, the jobs held ahead go back to the queue unrun (their attempts given back),
  for another worker or process. At a stop they go back the same way.
- A crash charges nobody for a job held ahead: a holder that dies holding several rows has them
  all given back and made suspect, each to run alone later (the stores' take-back, ports.queue).
- A job whose site's breaker opened since its claim goes back unrun, as if it had never been
  claimed.
- A cancel or a lost lease reaches a job held ahead as it reaches a running one: it is held
  (InFlight) from its claim, and its attempt stops before it starts.

A short job's deletion commits while the next job starts (that is the overlap): a crash in that
moment runs the short job again, as a crash between a job's end and its deletion always could.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from core.jobs.claims import Claims
from core.jobs.under_way import UnderWay
from ports.clock import Clock
from ports.jobs import Job

log = logging.getLogger("vidrelay.engine")
SHORT_STREAK = 3
"""Short jobs in a row before a worker claims ahead."""


class ClaimAhead:
    def __init__(
        self,
        *,
        claims: Claims,
        clock: Clock,
        give_back: Callable[[Job], Awaitable[None]],
        complete: Callable[[Job], Coroutine[Any, Any, None]],
        size: int,
        short_seconds: float,
    ) -> None:
        """`give_back`: lets a claimed job go unrun; `complete`: deletes a succeeded job's row;
        `size`: how many jobs one claim ahead takes (1: the worker never claims ahead)."""
        self._claims = claims
        self._clock = clock
        self._give_back = give_back
        self._complete = complete
        self._size = size
        self._short_seconds = short_seconds
        self._ready: deque[Job] = deque()
        self._claiming: asyncio.Future[list[Job]] | None = None
        self._writes = UnderWay()
        """The deletions of jobs run from here, and a giving back the watch started."""
        self._short_streak = 0
        self._running_since: float | None = None
        self._watch: asyncio.Future[None] | None = None

    @property
    def holding(self) -> bool:
        """Whether jobs are held ahead, or on their way."""
        return bool(self._ready) or self._claiming is not None

    def keep_up(self, took: float) -> None:
        """After a job that took `took` seconds: claim the next ones once the last few jobs
        were all short (one short job, a periodic sweep say, says little about the next)."""
        self._short_streak = self._short_streak + 1 if took < self._short_seconds else 0
        self._claim_ahead()

    def _claim_ahead(self) -> None:
        if self._size > 1 and self._short_streak >= SHORT_STREAK and self._claiming is None:
            self._claiming = asyncio.ensure_future(self._claim_several())
            if self._watch is None or self._watch.done():
                self._watch = asyncio.ensure_future(self._watch_the_running_job())

    def running(self, since: float | None) -> None:
        """The worker runs a job since `since` (monotonic); None: it runs none."""
        self._running_since = since

    async def _watch_the_running_job(self) -> None:
        """While jobs are held ahead: give them back once the running job took long. One timer
        for as long as that lasts, not one per job. The giving back is a write under way of its
        own, so that stopping the watch never cuts it off."""
        while self.holding:
            await self._clock.sleep(self._short_seconds)
            since = self._running_since
            if since is not None and self._clock.monotonic() - since >= self._short_seconds:
                self._short_streak = 0  # no claim ahead until jobs are short again
                self._writes.start(self._give_back_in_time())
                return

    async def _give_back_in_time(self) -> None:
        try:
            await self.give_back()
        except Exception:
            log.exception("giving back the jobs claimed ahead failed: they go back at the worker's end")

    async def _claim_several(self) -> list[Job]:
        claims = [self._claims.claim() for _ in range(self._size)]
        answers = await asyncio.gather(*claims, return_exceptions=True)
        # A claim that failed is the store's trouble, which the worker's own next claim meets
        # (and the store's health noted); the jobs the others took are held and must be run.
        return [answer for answer in answers if isinstance(answer, Job)]

    async def next(self, done: Job | None) -> Job | None:
        """While `holding`: the next job held ahead (waiting for those on their way), None if
        they were none after all. `done`, the worker's last job (it succeeded), has its row
        deleted meanwhile: the worker runs the next job while that commits."""
        if done is not None:
            self._writes.start(self._complete(done))
        await self._arrived()
        while self._ready:
            job = self._ready.popleft()
            if not self._claims.paused(job):
                return job
            await self._give_back(job)  # its site's breaker opened since the claim
        return None

    async def _arrived(self) -> None:
        claiming = self._claiming
        if self._ready or claiming is None:
            return
        try:
            jobs = await claiming
        finally:
            # The worker and a giving back may both wait for the same claims: the first to
            # resume lands them (and may start the next claims, which the other must not drop).
            landed = self._claiming is not claiming
            if not landed:
                self._claiming = None
        if not landed:
            self._ready.extend(jobs)
            # The next ones at once: their claims share the commit of the deletions of the jobs
            # just run, instead of a commit of their own after these jobs' first.
            self._claim_ahead()

    async def give_back(self) -> None:
        """Every job held ahead, or on its way, goes back to the queue unrun."""
        self._short_streak = 0  # no claim ahead until jobs are short again
        while self.holding:
            await self._arrived()
            while self._ready:
                await self._give_back(self._ready.popleft())

    def abandon(self) -> None:
        """The worker is cancelled: stop the claim and the watch; the rows held come back as any
        dead holder's do."""
        for task in (self._watch, self._claiming):
            if task is not None:
                task.cancel()

    async def finish(self) -> None:
        """At the worker's end: the jobs held ahead go back, the writes under way land."""
        if self._watch is not None:
            self._watch.cancel()
        try:
            await self.give_back()
        finally:
            await self._writes.finish()
