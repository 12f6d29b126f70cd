"""The worker pool that runs durable jobs.

Handlers persist a row and return; `concurrency` workers claim rows (write-ahead attempts, fenced
and renewed leases) and run them. A transient failure is persisted as the row's `available_at`,
so a backing-off job never blocks a worker and a restart keeps its schedule; a job that defers
itself (`registry.Deferred`: its chat's turn comes later) goes back the same way, its attempt
refunded. Idle workers sleep
until the next row is due or an enqueue wakes them — never a busy poll. Every background loop is
supervised: an error is logged and backed off from, a loop that still dies is started again.

The pieces: producing.py (making jobs), worker.py (the loop), attempt.py (deadlines),
settling.py (the finishing writes), heartbeat.py (leases), supervision.py (staying alive).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import Counter
from functools import partial

from core.jobs.attempt import Deadlines
from core.jobs.breaker import CircuitBreakers
from core.jobs.config import EngineConfig
from core.jobs.health import EngineHealth
from core.jobs.heartbeat import Heartbeat
from core.jobs.parts import EngineParts
from core.jobs.producing import Producer
from core.jobs.registry import JobRegistry
from core.jobs.settling import Settler
from core.jobs.supervision import Supervisor
from core.jobs.tasks import all_done, first_of, settle
from core.jobs.worker import Worker
from core.lifecycle.events import Claimed
from core.lifecycle.retry_policy import Random
from core.lifecycle.state import JobState
from core.lifecycle.step import step
from ports.clock import Clock
from ports.jobs import Guard, NewJob
from ports.json import Payload
from ports.queue import JobQueue
from ports.telemetry import JobEvents

log = logging.getLogger("vidrelay.engine")

__all__ = ["Engine", "EngineConfig"]


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
        self._p = EngineParts(
            store, clock, registry, config, random, worker_id, breakers or CircuitBreakers()
        )
        if events is not None:
            self._p.events = events
        self._deadlines = Deadlines(self._p)
        self._settler = Settler(self._p, self._deadlines)
        self._producer = Producer(self._p)
        self._supervisor = Supervisor(self._p)
        self._workers: list[asyncio.Task[None]] = []
        self._background: list[asyncio.Task[None]] = []

    @property
    def breakers(self) -> CircuitBreakers:
        return self._p.breakers

    @property
    def stats(self) -> Counter[str]:
        """Outcomes since start (completed, retried, dead_lettered), for the metrics endpoint."""
        return self._p.stats

    @property
    def in_flight(self) -> int:
        return len(self._p.in_flight)

    @property
    def worker_count(self) -> int:
        """Worker tasks the engine has while it runs."""
        return self._p.config.concurrency

    @property
    def live_workers(self) -> int:
        return self._supervisor.live_workers

    def health(self) -> EngineHealth:
        p = self._p
        running = bool(self._workers) and not p.stopping.is_set()
        return EngineHealth(
            live_workers=self._supervisor.live_workers,
            wanted_workers=p.config.concurrency,
            short_for_seconds=self._supervisor.short_for(p.clock.now()) if running else math.inf,
            store_refuses_writes=p.store_health.refusing_writes,
            grace_seconds=p.config.health_grace_seconds,
        )

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
        guard: Guard | None = None,
    ) -> int | None:
        """Enqueue a registered job type with its own attempt budget; None if the guard refused."""
        return await self.enqueue(self.new_job(name, payload, key=key, owner_id=owner_id), guard)

    def new_job(self, name: str, payload: Payload, *, key: str = "", owner_id: int | None = None) -> NewJob:
        return self._producer.new_job(name, payload, key=key, owner_id=owner_id)

    def wake(self) -> None:
        """An enqueue (or a closed breaker) may have made work claimable: wake idle workers."""
        self._p.wake.fire()

    def close_breakers(self) -> None:
        if self._p.breakers.close_all():
            self.wake()

    def job_names(self) -> list[str]:
        return self._p.registry.names()

    # Lifecycle ---------------------------------------------------------------------------

    async def start(self) -> int:
        """Boot: take back the rows of a dead previous process (crash attribution), bury the jobs
        that used up their attempts, start the workers, the heartbeat and the periodic ticks.

        Returns how many jobs gave up at this boot.
        """
        p = self._p
        if p.config.sole_instance:
            back = await p.queue.recover(p.worker_id)
            if back:
                log.warning("boot: %d job(s) came back from a process that died", back)
        gave_up = await self._bury_exhausted()
        # Every boot says it (the SPEC), so zero is routine; a job that gave up killed its
        # process at every attempt, and the operator should look at it.
        log.log(logging.WARNING if gave_up else logging.INFO, "boot: %d job(s) gave up at this boot", gave_up)
        keep = self._supervisor.keep_running
        for n in range(p.config.concurrency):
            worker = Worker(p, self._settler, self._deadlines, n)
            self._workers.append(keep(f"vidrelay-worker-{n}", worker.run, worker=True))
        self._background.append(keep("vidrelay-heartbeat", Heartbeat(p).run))
        for job_type in p.registry.periodic():
            self._background.append(
                keep(f"vidrelay-tick-{job_type.name}", partial(self._producer.tick, job_type))
            )
        return gave_up

    async def _bury_exhausted(self) -> int:
        p = self._p
        gave_up = 0
        for job in await p.queue.claim_exhausted(p.worker_id, p.clock.now(), p.config.lease_seconds):
            p.in_flight.hold(job, p.clock.now())
            job_type = p.registry.get(job.name)
            periodic = bool(job_type and job_type.interval_seconds)
            _, effect = step(
                JobState.before_claim(job, periodic=periodic), Claimed(), p.config.retry, p.random
            )
            await self._settler.apply(job, effect, job_type)
            gave_up += not periodic
            if periodic:
                log.warning("periodic job dropped after its process died", extra={"job_name": job.name})
        return gave_up

    async def stop(self, grace_seconds: float) -> None:
        """Stop claiming; let in-flight jobs finish for `grace_seconds`, then cancel them.

        Cancelled jobs are released with their attempt refunded: the rows wait for the next boot.
        The heartbeat keeps the leases of the jobs still finishing until the workers are done.
        """
        p = self._p
        p.stopping.set()
        self.wake()
        ticks = self._background[1:]
        for task in ticks:
            task.cancel()
        await settle(ticks)
        # Every worker is let go on its own first, idle ones too: one in the middle of a claim or
        # of deleting a finished job's row must finish that step, or a claimed job would keep a
        # spent attempt and a delivered one would run again.
        await first_of(all_done(self._workers), p.clock.sleep(grace_seconds))
        for task in [*self._workers, *self._background]:
            task.cancel()
        await settle([*self._workers, *self._background, *self._deadlines.cancel_abandoned()])
        self._workers, self._background = [], []
