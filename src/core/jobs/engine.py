"""The worker pool that runs durable jobs.

Handlers persist a row and return; `concurrency` workers claim rows (write-ahead attempts, fenced
and renewed leases) and run them. A transient failure is persisted as the row's `available_at`,
so a backing-off job never blocks a worker and a restart keeps its schedule; a job that defers
itself (`registry.Deferred`: its chat's turn comes later) goes back the same way, its attempt
refunded. Idle workers sleep until the next row is due or an enqueue wakes them — never a busy
poll. Every background loop is supervised: an error is logged and backed off from, a loop that
still dies is started again.

The pieces, each built here with what it needs: boot.py (crash attribution at start),
producing.py (making jobs), claims.py (taking them), worker.py (the loop), running.py (one
claimed job to its settling), attempt.py (deadlines), settling.py (the finishing writes),
heartbeat.py (leases), lease_watch.py and fence.py (an attempt that may no longer hold its
lease stops, and says nothing more to Telegram), supervision.py (staying alive). What they
share is passed to each: the held jobs (`InFlight`, where an attempt is stopped from outside),
the store's health, and two signals — `wake` (work may be claimable) and `finished` (a job let
go of its row).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import Counter
from dataclasses import dataclass
from functools import partial

from core.jobs.attempt import Deadlines
from core.jobs.backoff import Backoff
from core.jobs.boot import Boot
from core.jobs.breaker import CircuitBreakers, ReopenSites
from core.jobs.claims import Claims
from core.jobs.config import EngineConfig
from core.jobs.health import EngineHealth, StoreHealth
from core.jobs.heartbeat import Heartbeat
from core.jobs.in_flight import InFlight
from core.jobs.lease_watch import LeaseWatch
from core.jobs.producing import Producer
from core.jobs.registry import JobRegistry
from core.jobs.running import Attempts
from core.jobs.settling import Settler
from core.jobs.signals import Signal
from core.jobs.submitter import JobSubmitter
from core.jobs.supervision import Supervisor
from core.jobs.tasks import all_done, first_of, settle
from core.jobs.worker import Worker
from core.lifecycle.retry_policy import Random
from core.telemetry import Unobserved
from ports.cancels import JobCancels
from ports.clock import Clock
from ports.errors import StoreDamaged
from ports.jobs import Guard, NewJob
from ports.json import Payload
from ports.notices import WorkNotices
from ports.queue import JobQueue
from ports.telemetry import JobEvents

log = logging.getLogger("vidrelay.engine")

__all__ = ["Engine", "EngineConfig"]


class Engine(JobSubmitter):
    def __init__(
        self,
        queue: JobQueue,
        clock: Clock,
        registry: JobRegistry,
        config: EngineConfig,
        random: Random,
        worker_id: str,
        *,
        breakers: CircuitBreakers | None = None,
        events: JobEvents | None = None,
        wake: Signal | None = None,
        notices: WorkNotices | None = None,
        cancels: JobCancels | None = None,
    ) -> None:
        """`worker_id`: one per process; `events`: told of every job enqueued, completed, retried
        or buried (the metrics count them); `wake`: fired by whoever makes work claimable
        outside the engine (a confirmed prompt, a closed breaker); `notices`: a store shared
        with other processes, whose announcements wake this engine once it runs; `cancels`: where
        its heartbeat reads which of its running jobs their users cancelled (None: never)."""
        self._clock = clock
        self._notices = notices
        self._registry = registry
        self._config = config
        self._breakers = breakers or CircuitBreakers()
        self._wake = wake or Signal()
        self._quick_wake = Signal()
        """A quick row was enqueued: the quick lane's worker looks (ports.queue)."""
        self._stopping = asyncio.Event()
        self._damaged = asyncio.Event()
        self.damage: StoreDamaged | None = None
        """Why the engine stopped by itself: the store's data is damaged."""
        self._health = StoreHealth(clock, on_damaged=self._halt)
        events = events or Unobserved()
        in_flight, finished = InFlight(), Signal()
        self._in_flight = in_flight
        new_backoff = partial(Backoff, config.error_backoff, random)
        deadlines = Deadlines(
            clock=clock,
            hook_timeout_seconds=config.hook_timeout_seconds,
            grace_seconds=config.deadline_grace_seconds,
        )
        self._deadlines = deadlines
        self._settler = settler = Settler(
            queue=queue,
            clock=clock,
            in_flight=in_flight,
            finished=finished,
            events=events,
            health=self._health,
            deadlines=deadlines,
            new_backoff=new_backoff,
        )
        self._producer = Producer(
            queue=queue,
            clock=clock,
            registry=registry,
            max_attempts=config.max_attempts,
            events=events,
            wake=self._wake,
            quick_wake=self._quick_wake,
            health=self._health,
        )
        self._boot = Boot(
            queue=queue,
            clock=clock,
            registry=registry,
            worker_id=worker_id,
            lease_seconds=config.lease_seconds,
            sole_instance=config.sole_instance,
            retry=config.retry,
            random=random,
            in_flight=in_flight,
            settler=settler,
        )
        self._heartbeat = Heartbeat(
            queue=queue,
            cancels=cancels,
            clock=clock,
            worker_id=worker_id,
            in_flight=in_flight,
            health=self._health,
            every_seconds=config.heartbeat_seconds,
            lease_seconds=config.lease_seconds,
        )
        self._lease_watch = LeaseWatch(
            clock=clock, in_flight=in_flight, idle_seconds=config.heartbeat_seconds
        )
        self._claims = claims = Claims(
            queue=queue,
            clock=clock,
            worker_id=worker_id,
            lease_seconds=config.lease_seconds,
            breakers=self._breakers,
            in_flight=in_flight,
            health=self._health,
        )
        attempts = Attempts(
            queue=queue,
            clock=clock,
            registry=registry,
            retry=config.retry,
            random=random,
            breakers=self._breakers,
            in_flight=in_flight,
            deadlines=deadlines,
            settler=settler,
            jobs=self._producer,
            stopping=self._stopping,
            reserve=self._heartbeat.reserve,
            lease_margin_seconds=config.lease_margin_seconds,
        )
        self._workers = [
            Worker(
                n,
                quick_only=quick,
                claims=claims,
                attempts=attempts,
                settler=settler,
                clock=clock,
                wake=self._quick_wake if quick else self._wake,
                finished=finished,
                stopping=self._stopping,
                max_idle_seconds=config.max_idle_seconds,
                new_backoff=new_backoff,
            )
            for n, quick in enumerate([False] * config.concurrency + [True] * config.quick_lane)
        ]
        self._supervisor = Supervisor(clock=clock, wanted_workers=config.concurrency, new_backoff=new_backoff)
        self._running: _Tasks | None = None

    @property
    def breakers(self) -> CircuitBreakers:
        return self._breakers

    @property
    def stats(self) -> Counter[str]:
        """Outcomes since start (completed, retried, dead_lettered), for the metrics endpoint."""
        return self._settler.stats

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    @property
    def worker_count(self) -> int:
        """Worker tasks the engine has while it runs."""
        return self._config.concurrency

    @property
    def live_workers(self) -> int:
        return self._supervisor.live_workers

    def health(self) -> EngineHealth:
        running = self._running is not None and not self._stopping.is_set()
        return EngineHealth(
            live_workers=self._supervisor.live_workers,
            wanted_workers=self._config.concurrency,
            short_for_seconds=self._supervisor.short_for(self._clock.now()) if running else math.inf,
            store_refuses_writes=self._health.refusing_writes,
            grace_seconds=self._config.health_grace_seconds,
        )

    def _halt(self, error: StoreDamaged) -> None:
        """The store's data is damaged: every worker stops instead of looping on it, once."""
        if self.damage is not None:
            return
        self.damage = error
        log.critical("the store is damaged, the workers stop", exc_info=error)
        self._stopping.set()
        self._wake.fire()
        self._damaged.set()

    async def until_damaged(self) -> StoreDamaged:
        """Returns once the store was found damaged (the process should stop)."""
        await self._damaged.wait()
        assert self.damage is not None
        return self.damage

    async def stalled(self) -> str | None:
        """Why the workers are stuck though work is claimable, or None: a free worker, a row due
        for longer than the stall bound, and no claim of this process taking anything meanwhile
        (a claim that hangs, a worker loop that stopped waking). StoreError when the store
        cannot say; /healthz then says the store does not answer."""
        running = self._running is not None and not self._stopping.is_set()
        if not running or len(self._in_flight) >= self._config.concurrency:
            return None
        waited = await self._claims.stalled_for(self._clock.now(), self._config.stall_seconds)
        return None if waited is None else f"no progress on claimable work for {waited:.0f}s"

    # Producing -------------------------------------------------------------------------

    async def enqueue(self, job: NewJob, guard: Guard | None = None) -> int | None:
        return await self._producer.enqueue(job, guard)

    async def submit(
        self,
        name: str,
        payload: Payload,
        *,
        key: str = "",
        owner_id: int | None = None,
        requester: int | None = None,
        quick: bool = False,
        guard: Guard | None = None,
        available_at: float = 0.0,
    ) -> int | None:
        return await self._producer.submit(
            name,
            payload,
            key=key,
            owner_id=owner_id,
            requester=requester,
            quick=quick,
            guard=guard,
            available_at=available_at,
        )

    def new_job(
        self,
        name: str,
        payload: Payload,
        *,
        key: str = "",
        owner_id: int | None = None,
        requester: int | None = None,
        quick: bool = False,
    ) -> NewJob:
        return self._producer.new_job(
            name, payload, key=key, owner_id=owner_id, requester=requester, quick=quick
        )

    def wake(self) -> None:
        """An enqueue (or a closed breaker) may have made work claimable: wake idle workers."""
        self._wake.fire()

    def cancel_asked(self) -> None:
        """A user cancelled a running job: if this process runs it, it stops now (the heartbeat
        checks at once instead of at its next beat)."""
        self._heartbeat.check_now()

    def close_breakers(self) -> None:
        ReopenSites(self._breakers, self.wake)()

    def job_names(self) -> list[str]:
        return self._registry.names()

    # Lifecycle ---------------------------------------------------------------------------

    async def start(self) -> int:
        """Boot (see boot.py), then listen for other processes' work and start the workers, the
        heartbeat and the periodic ticks.

        Returns how many jobs gave up at this boot.
        """
        gave_up = await self._boot.run()
        self._claims.started()
        if self._notices is not None:
            self._notices.on_work(self.wake)
            self._notices.on_quick_work(self._quick_wake.fire)
            self._notices.on_cancel(self.cancel_asked)
        keep = self._supervisor.keep_running
        self._running = _Tasks(
            # The quick lane's worker is kept alive like the others but is not one of the
            # `concurrency` workers /healthz counts.
            workers=[
                keep(f"vidrelay-worker-{n}", worker.run, worker=n < self._config.concurrency)
                for n, worker in enumerate(self._workers)
            ],
            heartbeat=keep("vidrelay-heartbeat", self._heartbeat.run),
            lease_watch=keep("vidrelay-lease-watch", self._lease_watch.run),
            ticks=[
                keep(f"vidrelay-tick-{job_type.name}", partial(self._producer.tick, job_type))
                for job_type in self._registry.periodic()
            ],
        )
        return gave_up

    async def stop(self, grace_seconds: float) -> None:
        """Stop claiming; let in-flight jobs finish for `grace_seconds`, then cancel them.

        Cancelled jobs are released with their attempt refunded: the rows wait for the next boot.
        In this order: the ticks stop enqueueing; the workers get the grace; then the workers and
        the heartbeat go (it keeps the leases of the jobs still finishing until the workers are
        done); last, the handlers that ignored their cancellation.
        """
        self._stopping.set()
        self.wake()
        running, self._running = self._running, None
        if running is None:
            return
        for task in running.ticks:
            task.cancel()
        await settle(running.ticks)
        # Every worker is let go on its own first, idle ones too: one in the middle of a claim or
        # of deleting a finished job's row must finish that step, or a claimed job would keep a
        # spent attempt and a delivered one would run again.
        await first_of(all_done(running.workers), self._clock.sleep(grace_seconds))
        for task in [*running.workers, running.heartbeat, running.lease_watch]:
            task.cancel()
        await settle(
            [*running.workers, running.heartbeat, running.lease_watch, *self._deadlines.cancel_abandoned()]
        )


@dataclass(frozen=True, slots=True)
class _Tasks:
    """The engine's tasks while it runs, by what each is: stopping takes them in a set order."""

    workers: list[asyncio.Task[None]]
    heartbeat: asyncio.Task[None]
    lease_watch: asyncio.Task[None]
    ticks: list[asyncio.Task[None]]
