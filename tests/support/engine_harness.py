"""An engine over the memory store on virtual time, with a job type that records its runs
(the unit tests of core/jobs)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from returns.result import Success

from adapters.memory.store import MemoryStore
from core.jobs.breaker import CircuitBreakers
from core.jobs.context import JobContext
from core.jobs.engine import Engine, EngineConfig
from core.jobs.hooks import DeadJob
from core.jobs.outcome import JobOutcome
from core.jobs.registry import JobRegistry, JobType
from core.lifecycle.retry_policy import RetryPolicy
from ports.jobs import Job
from tests.support.clock import VirtualClock

Handler = Callable[[JobContext], Awaitable[JobOutcome]]


class Harness:
    def __init__(self, clock: VirtualClock, store: MemoryStore) -> None:
        self.clock = clock
        self.store = store
        self.engine: Engine | None = None
        self.dead: list[DeadJob] = []

    def build(
        self,
        *types: JobType,
        concurrency: int = 1,
        breakers: CircuitBreakers | None = None,
        claim_ahead: int = EngineConfig().claim_ahead,
    ) -> Engine:
        config = EngineConfig(
            concurrency=concurrency,
            claim_ahead=claim_ahead,
            max_attempts=3,
            retry=RetryPolicy(base_seconds=1.0, cap_seconds=300.0, jitter=0.25),
        )
        self.engine = Engine(
            self.store, self.clock, JobRegistry(types), config, lambda: 0.5, "test-worker", breakers=breakers
        )
        return self.engine

    async def enqueue(self, name: str, payload: dict[str, object] | None = None, key: str = "") -> int:
        assert self.engine is not None
        job_id = await self.engine.enqueue(self.engine.new_job(name, dict(payload or {}), key=key))  # type: ignore[arg-type]
        assert job_id is not None
        return job_id

    def job_type(self, name: str, run: Handler, **options: object) -> JobType:
        async def on_dead(dead: DeadJob) -> None:
            self.dead.append(dead)

        return JobType(name, run, on_dead=on_dead, **options)  # type: ignore[arg-type]


DONE: JobOutcome = Success(None)


def recorder(clock: VirtualClock, log: list[tuple[str, float]], outcome: JobOutcome = DONE) -> Handler:
    async def run(context: JobContext) -> JobOutcome:
        log.append((str(context.payload.get("n", "")), clock.now()))
        return outcome

    return run


class SlowClaims(MemoryStore):
    """A store whose claim commits, then takes a while to answer (a busy SQLite writer)."""

    def __init__(self) -> None:
        super().__init__()
        self.answer = asyncio.Event()
        self.claims = 0

    async def claim(self, *args: object, **kwargs: object) -> Job | None:  # type: ignore[override]
        job = await super().claim(*args, **kwargs)  # type: ignore[arg-type]
        self.claims += 1
        await self.answer.wait()
        return job
