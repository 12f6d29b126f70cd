"""The engine over a store that fails for a while: every job enqueued before, during and after the
outage completes once, and /healthz says the store refuses writes until one lands."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest
from returns.result import Success

from adapters.memory.store import MemoryStore
from core.jobs.context import JobContext
from core.jobs.engine import Engine
from core.jobs.outcome import JobOutcome
from core.jobs.registry import JobType
from ports.errors import StoreError
from ports.jobs import HandledUrlGuard
from tests.support.clock import VirtualClock
from tests.support.faulty_engine import CONFIG, drained, engine_over
from tests.support.faulty_queue import FaultyQueue


@pytest.mark.parametrize("landed_before_failing", [False, True], ids=["refused", "answer-lost"])
async def test_every_job_enqueued_before_during_and_after_a_store_outage_completes_once(
    clock: VirtualClock,
    escaped: list[dict[str, Any]],
    stopped_at_the_end: list[Engine],
    landed_before_failing: bool,
) -> None:
    store = MemoryStore()
    queue = FaultyQueue(store)
    queue.landed_before_failing = landed_before_failing
    outage = (clock.now() + 1.0, clock.now() + 6.0)
    queue.fails = lambda _: outage[0] <= clock.now() < outage[1]
    runs: Counter[str] = Counter()

    async def takes_two_seconds(context: JobContext) -> JobOutcome:
        runs[str(context.payload["n"])] += 1
        await clock.sleep(2.0)
        return Success(None)

    engine = engine_over(queue, clock, JobType("work", takes_two_seconds, timeout_seconds=60.0))
    stopped_at_the_end.append(engine)

    async def produce(n: int) -> None:
        """As intake does: a refused enqueue is offered again (the guard makes that idempotent)."""
        job = engine.new_job("work", {"n": n})
        while True:
            try:
                await engine.enqueue(job, HandledUrlGuard(1, n, "https://example.com/v"))
                return
            except StoreError:
                await clock.sleep(0.5)

    for n in range(6):
        await produce(n)
    await engine.start()
    live: list[int] = []
    await clock.advance(2.0)
    during = [asyncio.create_task(produce(n)) for n in range(6, 9)]
    for _ in range(40):
        await clock.advance(0.25)
        live.append(engine.health().live_workers)
    await asyncio.gather(*during)
    for n in range(9, 12):
        await produce(n)
    await drained(store, clock)

    assert runs == Counter({str(n): 1 for n in range(12)})
    assert queue.failed  # the outage did hit the engine
    assert await store.list_failed() == []
    assert min(live) == 3
    assert engine.health().problem(runs_jobs=True) is None
    assert escaped == []


async def test_a_store_that_refuses_writes_is_unhealthy_until_one_lands(
    clock: VirtualClock, stopped_at_the_end: list[Engine]
) -> None:
    queue = FaultyQueue(MemoryStore())
    refusing = False
    queue.fails = lambda _: refusing
    engine = engine_over(queue, clock)
    stopped_at_the_end.append(engine)
    await engine.start()
    refusing = True

    await clock.advance(CONFIG.heartbeat_seconds + 1)
    assert engine.health().store_refuses_writes
    assert engine.health().problem(runs_jobs=True) == "the store refuses writes"

    refusing = False
    await clock.advance(CONFIG.heartbeat_seconds + 1)
    assert engine.health().problem(runs_jobs=True) is None
