"""An engine over a queue that may fail, and what its fault tests count and wait for."""

from __future__ import annotations

from collections import Counter
from typing import Any

from adapters.memory.store import MemoryStore
from core.jobs.config import EngineConfig
from core.jobs.engine import Engine
from core.jobs.registry import JobRegistry, JobType
from core.lifecycle.retry_policy import RetryPolicy
from ports.queue import JobQueue
from ports.telemetry import JobEvents
from tests.support.clock import VirtualClock

CONFIG = EngineConfig(concurrency=3, retry=RetryPolicy(base_seconds=1.0, jitter=0.0), sole_instance=False)


def engine_over(
    queue: JobQueue,
    clock: VirtualClock,
    *types: JobType,
    worker: str = "w",
    events: JobEvents | None = None,
    **config: Any,
) -> Engine:
    options = {"concurrency": 3, "retry": RetryPolicy(base_seconds=1.0, jitter=0.0), "sole_instance": False}
    options.update(config)
    registry = JobRegistry(types)
    return Engine(queue, clock, registry, EngineConfig(**options), lambda: 0.5, worker, events=events)


class CountedEvents(JobEvents):
    """What the metrics would count."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()

    def job_enqueued(self, name: str) -> None:
        self.seen["enqueued"] += 1

    def job_completed(self, name: str, claim_to_done_seconds: float) -> None:
        self.seen["completed"] += 1

    def job_retried(self, name: str) -> None:
        self.seen["retried"] += 1

    def job_dead(self, name: str) -> None:
        self.seen["dead"] += 1

    def job_cancelled(self, name: str) -> None:
        self.seen["cancelled"] += 1


async def drained(store: MemoryStore, clock: VirtualClock, limit_seconds: float = 600.0) -> None:
    for _ in range(int(limit_seconds / 0.5)):
        if not await store.list_jobs():
            return
        await clock.advance(0.5)
    raise AssertionError("the queue did not drain")
