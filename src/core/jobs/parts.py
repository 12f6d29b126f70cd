"""What the engine's pieces (workers, settler, heartbeat, producer) share."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import TypeVar

from core.jobs.backoff import Backoff
from core.jobs.breaker import CircuitBreakers
from core.jobs.config import EngineConfig
from core.jobs.health import StoreHealth
from core.jobs.in_flight import InFlight
from core.jobs.registry import JobRegistry
from core.jobs.signals import Signal
from core.lifecycle.retry_policy import Random
from core.telemetry import Unobserved
from ports.clock import Clock
from ports.queue import JobQueue
from ports.telemetry import JobEvents

T = TypeVar("T")


@dataclass
class EngineParts:
    queue: JobQueue
    clock: Clock
    registry: JobRegistry
    config: EngineConfig
    random: Random
    worker_id: str
    """One per process: every worker task of this engine claims under it."""
    breakers: CircuitBreakers
    events: JobEvents = field(default_factory=Unobserved)
    """Told of every job enqueued, completed, retried or buried (the metrics count them)."""
    in_flight: InFlight = field(default_factory=InFlight)
    wake: Signal = field(default_factory=Signal)
    """Work may be claimable: an enqueue, a closed breaker."""
    finished: Signal = field(default_factory=Signal)
    """A job of this process let go of its row (a suspect next in line may run now)."""
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    stats: Counter[str] = field(default_factory=Counter)
    """Outcomes since start (completed, retried, dead_lettered), for the metrics endpoint."""
    store_health: StoreHealth = field(default_factory=StoreHealth)

    def backoff(self) -> Backoff:
        return Backoff(self.config.error_backoff, self.random)

    async def store_write(self, write: Awaitable[T]) -> T:
        """`write`'s answer, its outcome noted in `store_health` (/healthz reports a store that
        refuses writes); the store's error is raised on for the caller to handle."""
        try:
            answer = await write
        except Exception:
            self.store_health.refused(self.clock.now())
            raise
        self.store_health.wrote()
        return answer
