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
from ports.errors import StoreDamaged, StoreError
from ports.jobs import HandledUrlGuard, NewJob
from ports.queue import JobQueue
from tests.support.clock import VirtualClock, settle
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


class HangingClaims(FaultyQueue):
    """Claims that neither return nor fail while `hanging` is set: a claims task that died with its
    callers still waiting (issue 20), as the store looked from the engine's side."""

    def __init__(self, inner: JobQueue) -> None:
        super().__init__(inner)
        self.hanging = False
        self.unstuck = asyncio.Event()

    async def claim(self, *args: Any, **kwargs: Any) -> Any:
        if self.hanging:
            await self.unstuck.wait()
        return await super().claim(*args, **kwargs)


async def test_claimable_work_that_free_workers_do_not_take_is_a_stall_until_they_take_it(
    clock: VirtualClock, stopped_at_the_end: list[Engine]
) -> None:
    store = MemoryStore()
    queue = HangingClaims(store)
    ran: list[int] = []

    async def noop(context: JobContext) -> JobOutcome:
        ran.append(context.job.id)
        return Success(None)

    engine = engine_over(queue, clock, JobType("noop", noop))
    stopped_at_the_end.append(engine)
    await engine.start()
    queue.hanging = True
    job_id = await store.enqueue(NewJob("noop", {}, 3), clock.now())  # from another process
    engine.wake()

    await clock.advance(CONFIG.stall_seconds)
    assert await engine.stalled() is None  # not yet past the bound
    await clock.advance(5)
    assert await engine.stalled() == "no progress on claimable work for 65s"
    assert engine.health().problem(runs_jobs=True) is None  # nothing else shows it

    queue.hanging = False
    queue.unstuck.set()
    await drained(store, clock)
    assert ran == [job_id]
    assert await engine.stalled() is None


async def test_a_busy_pool_or_work_not_yet_due_is_no_stall(
    clock: VirtualClock, stopped_at_the_end: list[Engine]
) -> None:
    store = MemoryStore()
    release = asyncio.Event()

    async def slow(context: JobContext) -> JobOutcome:
        await release.wait()
        return Success(None)

    engine = engine_over(store, clock, JobType("slow", slow, timeout_seconds=3600), concurrency=1)
    stopped_at_the_end.append(engine)
    await engine.start()
    await engine.enqueue(NewJob("slow", {}, 3))
    await engine.enqueue(NewJob("slow", {}, 3))  # waits: the one worker is busy
    await engine.enqueue(NewJob("slow", {}, 3, available_at=clock.now() + 3600))

    await clock.advance(CONFIG.stall_seconds * 2)
    assert await engine.stalled() is None
    release.set()
    await drained(store, clock, limit_seconds=7200)
    assert await engine.stalled() is None


class DamagedClaims(FaultyQueue):
    """Claims that meet a damaged file, as SQLite's "database disk image is malformed"."""

    def __init__(self, inner: JobQueue) -> None:
        super().__init__(inner)
        self.claims = 0

    async def claim(self, *args: Any, **kwargs: Any) -> Any:
        self.claims += 1
        raise StoreDamaged("vidrelay.db is damaged (database disk image is malformed): restore a backup")


async def test_a_damaged_store_stops_the_workers_with_one_line_instead_of_looping(
    clock: VirtualClock, stopped_at_the_end: list[Engine], caplog: pytest.LogCaptureFixture
) -> None:
    queue = DamagedClaims(MemoryStore())
    engine = engine_over(queue, clock)
    stopped_at_the_end.append(engine)
    await engine.start()
    await settle()

    damage = await asyncio.wait_for(engine.until_damaged(), 5)
    await clock.advance(600)  # ten minutes: a loop would have tried again and again

    assert "malformed" in str(damage)
    assert queue.claims <= CONFIG.concurrency  # each worker met it once, then stopped
    critical = [(r.getMessage(), r.exc_info) for r in caplog.records if r.levelname == "CRITICAL"]
    assert [message for message, _ in critical] == ["the store is damaged, the workers stop"]
    assert critical[0][1] is not None
    assert critical[0][1][1] is damage
