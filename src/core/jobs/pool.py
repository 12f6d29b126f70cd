"""The workers: `concurrency` claim loops, and the quick lane's, claiming through one `Claims` and
running what they claim through one `Attempts`, kept alive by one supervisor; and what /healthz
asks of them: are they all there, and are they stuck though work is claimable."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable

from core.jobs.attempt import Deadlines
from core.jobs.backoff import Backoff
from core.jobs.breaker import CircuitBreakers
from core.jobs.claims import Claims
from core.jobs.config import EngineConfig
from core.jobs.fence import Reserve
from core.jobs.health import EngineHealth
from core.jobs.in_flight import InFlight
from core.jobs.registry import JobRegistry
from core.jobs.running import Attempts
from core.jobs.settling import Settler
from core.jobs.signals import Signal
from core.jobs.store_health import StoreHealth
from core.jobs.submitter import JobSubmitter
from core.jobs.supervision import Supervisor
from core.jobs.worker import Worker
from core.lifecycle.retry_policy import Random
from ports.clock import Clock
from ports.queue import JobQueue


class WorkerPool:
    def __init__(
        self,
        *,
        queue: JobQueue,
        clock: Clock,
        registry: JobRegistry,
        config: EngineConfig,
        random: Random,
        worker_id: str,
        breakers: CircuitBreakers,
        in_flight: InFlight,
        health: StoreHealth,
        deadlines: Deadlines,
        settler: Settler,
        jobs: JobSubmitter,
        reserve: Reserve,
        wake: Signal,
        quick_wake: Signal,
        finished: Signal,
        stopping: asyncio.Event,
        new_backoff: Callable[[], Backoff],
    ) -> None:
        """`jobs`: what an attempt enqueues through; `reserve`: what its fence renews the lease
        through (the heartbeat's); `quick_wake`: wakes the quick lane's worker only."""
        self._clock = clock
        self._config = config
        self._in_flight = in_flight
        self._health = health
        self._claims = Claims(
            queue=queue,
            clock=clock,
            worker_id=worker_id,
            lease_seconds=config.lease_seconds,
            breakers=breakers,
            in_flight=in_flight,
            health=health,
        )
        attempts = Attempts(
            queue=queue,
            clock=clock,
            registry=registry,
            retry=config.retry,
            random=random,
            breakers=breakers,
            in_flight=in_flight,
            deadlines=deadlines,
            settler=settler,
            jobs=jobs,
            stopping=stopping,
            reserve=reserve,
            lease_margin_seconds=config.lease_margin_seconds,
        )
        self.workers = [
            Worker(
                n,
                quick_only=quick,
                claims=self._claims,
                attempts=attempts,
                settler=settler,
                clock=clock,
                wake=quick_wake if quick else wake,
                finished=finished,
                stopping=stopping,
                max_idle_seconds=config.max_idle_seconds,
                new_backoff=new_backoff,
                claim_ahead=config.claim_ahead,
                short_seconds=config.claim_ahead_below_seconds,
            )
            for n, quick in enumerate([False] * config.concurrency + [True] * config.quick_lane)
        ]
        """The quick lane's worker last: it is not one of the `concurrency` workers /healthz counts."""
        self.supervisor = Supervisor(clock=clock, wanted_workers=config.concurrency, new_backoff=new_backoff)

    def started(self) -> None:
        """The engine starts: nothing was claimable for it before."""
        self._claims.started()

    def health(self, *, running: bool) -> EngineHealth:
        """`running`: the engine runs and is not stopping (else it gets no grace for a gap)."""
        return EngineHealth(
            live_workers=self.supervisor.live_workers,
            wanted_workers=self._config.concurrency,
            short_for_seconds=self.supervisor.short_for(self._clock.now()) if running else math.inf,
            store_refuses_writes=self._health.refusing_writes,
            grace_seconds=self._config.health_grace_seconds,
        )

    async def stalled(self, *, running: bool) -> str | None:
        """Why the workers are stuck though work is claimable, or None: a free worker, a row due
        for longer than the stall bound, and no claim of this process taking anything meanwhile
        (a claim that hangs, a worker loop that stopped waking). StoreError when the store
        cannot say; /healthz then says the store does not answer."""
        if not running or len(self._in_flight) >= self._config.concurrency:
            return None
        waited = await self._claims.stalled_for(self._clock.now(), self._config.stall_seconds)
        return None if waited is None else f"no progress on claimable work for {waited:.0f}s"
