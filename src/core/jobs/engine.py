"""The engine that runs durable jobs.

Handlers persist a row and return; `concurrency` workers claim rows (write-ahead attempts, fenced
and renewed leases) and run them. A transient failure is persisted as the row's `available_at`,
so a backing-off job never blocks a worker and a restart keeps its schedule; a job that defers
itself (`outcome.Deferred`: its chat's turn comes later) goes back the same way, its attempt
refunded. Idle workers sleep until the next row is due or an enqueue wakes them — never a busy
poll. Every background loop is supervised: an error is logged and backed off from, a loop that
still dies is started again.

The pieces (the package's `__init__` maps them) are each built here with what they need. What
they share is passed to each: the held jobs (`InFlight`, where an attempt is stopped from
outside), the store's health, and two signals — `wake` (work may be claimable) and `finished` (a
job let go of its row).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from functools import partial

from core.jobs.attempt import Deadlines
from core.jobs.backoff import Backoff
from core.jobs.boot import Boot
from core.jobs.breaker import CircuitBreakers, ReopenSites
from core.jobs.config import EngineConfig
from core.jobs.crew import Crew
from core.jobs.halt import Halt
from core.jobs.health import EngineHealth
from core.jobs.heartbeat import Heartbeat
from core.jobs.in_flight import InFlight
from core.jobs.lease_watch import LeaseWatch
from core.jobs.pool import WorkerPool
from core.jobs.producing import Producer
from core.jobs.registry import JobRegistry
from core.jobs.settling import Settler
from core.jobs.signals import Signal
from core.jobs.store_health import StoreHealth
from core.jobs.submitter import JobSubmitter
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
        self._notices = notices
        self._registry = registry
        self._config = config
        self._breakers = breakers or CircuitBreakers()
        self._wake = wake or Signal()
        self._quick_wake = Signal()
        """A quick row was enqueued: the quick lane's worker looks (ports.queue)."""
        self._stopping = asyncio.Event()
        self._halt = Halt(stopping=self._stopping, wake=self._wake)
        health = StoreHealth(clock, on_damaged=self._halt)
        events = events or Unobserved()
        in_flight, finished = InFlight(), Signal()
        self._in_flight = in_flight
        new_backoff = partial(Backoff, config.error_backoff, random)
        deadlines = Deadlines(
            clock=clock,
            hook_timeout_seconds=config.hook_timeout_seconds,
            grace_seconds=config.deadline_grace_seconds,
        )
        self._settler = settler = Settler(
            queue=queue,
            clock=clock,
            in_flight=in_flight,
            finished=finished,
            events=events,
            health=health,
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
            health=health,
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
        self._heartbeat = heartbeat = Heartbeat(
            queue=queue,
            cancels=cancels,
            clock=clock,
            worker_id=worker_id,
            in_flight=in_flight,
            health=health,
            every_seconds=config.heartbeat_seconds,
            lease_seconds=config.lease_seconds,
        )
        self._pool = pool = WorkerPool(
            queue=queue,
            clock=clock,
            registry=registry,
            config=config,
            random=random,
            worker_id=worker_id,
            breakers=self._breakers,
            in_flight=in_flight,
            health=health,
            deadlines=deadlines,
            settler=settler,
            jobs=self._producer,
            reserve=heartbeat.reserve,
            wake=self._wake,
            quick_wake=self._quick_wake,
            finished=finished,
            stopping=self._stopping,
            new_backoff=new_backoff,
        )
        self._crew = Crew(
            clock=clock,
            supervisor=pool.supervisor,
            workers=pool.workers,
            counted_workers=config.concurrency,
            heartbeat=heartbeat,
            lease_watch=LeaseWatch(clock=clock, in_flight=in_flight, idle_seconds=config.heartbeat_seconds),
            producer=self._producer,
            periodic=registry.periodic(),
            deadlines=deadlines,
        )

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
        return self._pool.supervisor.live_workers

    def health(self) -> EngineHealth:
        return self._pool.health(running=self._running)

    @property
    def damage(self) -> StoreDamaged | None:
        """Why the engine stopped by itself: the store's data is damaged."""
        return self._halt.damage

    async def until_damaged(self) -> StoreDamaged:
        """Returns once the store was found damaged (the process should stop)."""
        return await self._halt.until_damaged()

    async def stalled(self) -> str | None:
        """Why the workers are stuck though work is claimable, or None (see pool.py)."""
        return await self._pool.stalled(running=self._running)

    @property
    def _running(self) -> bool:
        return self._crew.running and not self._stopping.is_set()

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
        self._pool.started()
        if self._notices is not None:
            self._notices.on_work(self.wake)
            self._notices.on_quick_work(self._quick_wake.fire)
            self._notices.on_cancel(self.cancel_asked)
        self._crew.start()
        return gave_up

    async def stop(self, grace_seconds: float) -> None:
        """Stop claiming; let in-flight jobs finish for `grace_seconds`, then cancel them (in the
        order crew.py gives). Cancelled jobs are released with their attempt refunded: the rows
        wait for the next boot."""
        self._stopping.set()
        self.wake()
        await self._crew.stop(grace_seconds)
