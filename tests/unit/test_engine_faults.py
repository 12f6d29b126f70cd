"""The engine under faults, on virtual time: a store that fails for a while, leases that expire
under a live worker, handlers and hooks that overrun, loops that die. Nothing is lost, nothing
runs twice, no error escapes."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import pytest
from returns.result import Failure, Success

from adapters.memory.store import MemoryStore
from core.jobs.backoff import Backoff
from core.jobs.config import EngineConfig
from core.jobs.context import JobContext, RetryNotice
from core.jobs.engine import Engine
from core.jobs.outcome import JobFailure, JobOutcome
from core.jobs.registry import JobRegistry, JobType
from core.jobs.supervision import Supervisor
from core.lifecycle.retry_policy import RetryPolicy
from ports.errors import StoreError
from ports.jobs import HandledUrlGuard, NewJob
from ports.queue import JobQueue
from ports.telemetry import JobEvents
from tests.support.clock import VirtualClock, settle
from tests.support.faulty_queue import FaultyQueue

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


@pytest.fixture
async def escaped() -> AsyncIterator[list[dict[str, Any]]]:
    """Every error that reached the event loop unhandled (a task that died with nobody awaiting it)."""
    loop = asyncio.get_running_loop()
    seen: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _, context: seen.append(context))
    yield seen
    loop.set_exception_handler(None)


@pytest.fixture
async def stopped_at_the_end() -> AsyncIterator[list[Engine]]:
    engines: list[Engine] = []
    yield engines
    for engine in engines:
        await engine.stop(grace_seconds=0)


async def drained(store: MemoryStore, clock: VirtualClock, limit_seconds: float = 600.0) -> None:
    for _ in range(int(limit_seconds / 0.5)):
        if not await store.list_jobs():
            return
        await clock.advance(0.5)
    raise AssertionError("the queue did not drain")


# A store that fails every call for a while --------------------------------------------------------


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


# Fenced leases --------------------------------------------------------------------------------------


async def test_a_stale_worker_whose_lease_expired_during_a_hook_changes_nothing(
    clock: VirtualClock, stopped_at_the_end: list[Engine], caplog: pytest.LogCaptureFixture
) -> None:
    """Worker a's heartbeat cannot reach the store while its retry report waits on flood control;
    its lease ends, worker b takes the row over and delivers; a's late retry write is a no-op."""
    store = MemoryStore()
    to_a = FaultyQueue(store)
    to_a.fails = lambda name: name == "renew"
    delivered: list[tuple[str, int]] = []
    hook_may_end = asyncio.Event()

    async def deliver(context: JobContext) -> JobOutcome:
        if context.attempt == 1:
            return Failure(JobFailure("HTTP Error 503"))
        delivered.append((context.job.claimed_by or "", context.attempt))
        return Success(None)

    async def slow_report(notice: RetryNotice) -> None:
        await hook_may_end.wait()  # e.g. an edit held back by Telegram's flood control

    job_type = JobType("deliver", deliver, on_retry=slow_report)
    seen_by_a, seen_by_b = CountedEvents(), CountedEvents()
    a = engine_over(
        to_a, clock, job_type, worker="a", events=seen_by_a, concurrency=1, hook_timeout_seconds=10_000
    )
    b = engine_over(store, clock, job_type, worker="b", events=seen_by_b, concurrency=1)
    stopped_at_the_end.extend([a, b])
    job_id = await a.submit("deliver", {"chat_id": 7})
    await a.start()
    await settle()
    await b.start()

    await clock.advance(CONFIG.lease_seconds + 1)
    assert delivered == [("b", 2)]  # b took the row over once a's lease ended
    hook_may_end.set()
    await clock.advance(1)
    await clock.advance(600)

    assert delivered == [("b", 2)]  # a's stale retry_later did not bring the row back
    assert "job lost its lease: its retry changed nothing" in caplog.text
    # The metrics count what landed: a's retry did not, b's completion did.
    assert (seen_by_a.seen, seen_by_b.seen) == (Counter(enqueued=1), Counter(completed=1))
    assert await store.list_jobs() == []
    assert await store.list_failed() == []
    assert job_id is not None


async def test_the_heartbeat_keeps_a_long_attempt_held_past_many_lease_lengths(
    clock: VirtualClock, stopped_at_the_end: list[Engine]
) -> None:
    store = MemoryStore()
    runs: list[str] = []

    async def long_download(context: JobContext) -> JobOutcome:
        runs.append(context.job.claimed_by or "")
        await clock.sleep(10 * CONFIG.lease_seconds)
        return Success(None)

    job_type = JobType("download", long_download, timeout_seconds=100 * CONFIG.lease_seconds)
    a = engine_over(store, clock, job_type, worker="a", concurrency=1)
    b = engine_over(store, clock, job_type, worker="b", concurrency=1)
    stopped_at_the_end.extend([a, b])
    await a.submit("download", {})
    await a.start()
    await settle()
    await b.start()

    await drained(store, clock, limit_seconds=20 * CONFIG.lease_seconds)

    assert runs == ["a"]


async def test_a_lease_the_store_says_is_lost_stops_its_attempt_without_a_finishing_write(
    clock: VirtualClock, stopped_at_the_end: list[Engine]
) -> None:
    store = MemoryStore()
    queue = FaultyQueue(store)
    stopped: list[int] = []

    async def slow(context: JobContext) -> JobOutcome:
        try:
            await clock.sleep(1000)
        except asyncio.CancelledError:
            stopped.append(context.job.id)
            raise
        return Success(None)

    engine = engine_over(queue, clock, JobType("slow", slow, timeout_seconds=5000), concurrency=1)
    stopped_at_the_end.append(engine)
    job_id = await engine.submit("slow", {})
    await engine.start()
    await settle()
    [running] = await store.list_jobs()
    await store.release(running.lease, clock.now() + 10_000)  # another party took the row away

    await clock.advance(CONFIG.heartbeat_seconds + 1)

    assert stopped == [job_id]
    assert engine.in_flight == 0
    [row] = await store.list_jobs()
    assert (row.claimed_by, row.attempts) == (None, 0)  # untouched since it was taken away


# Deadlines ----------------------------------------------------------------------------------------------


async def test_a_handler_that_ignores_cancellation_frees_its_slot_at_the_deadline(
    clock: VirtualClock, stopped_at_the_end: list[Engine]
) -> None:
    started: list[tuple[str, float]] = []
    let_go = asyncio.Event()

    async def stubborn(context: JobContext) -> JobOutcome:
        started.append((str(context.payload["n"]), clock.now()))
        if context.payload["n"] == "stubborn" and context.attempt == 1:
            while not let_go.is_set():
                try:
                    await clock.sleep(10_000)
                except asyncio.CancelledError:
                    continue  # a handler stuck in something that swallows cancellation
        return Success(None)

    engine = engine_over(MemoryStore(), clock, JobType("work", stubborn, timeout_seconds=60.0), concurrency=1)
    stopped_at_the_end.append(engine)
    t0 = clock.now()
    await engine.submit("work", {"n": "stubborn"})
    await engine.submit("work", {"n": "next"})
    await engine.start()

    await clock.run_until(lambda: len(started) == 2, limit_seconds=200)

    assert started[1][0] == "next"
    assert started[1][1] - t0 == pytest.approx(60 + CONFIG.deadline_grace_seconds, abs=0.6)
    let_go.set()


async def test_a_retry_report_that_hangs_does_not_hold_the_retry(
    clock: VirtualClock, stopped_at_the_end: list[Engine]
) -> None:
    attempts: list[float] = []

    async def flaky(context: JobContext) -> JobOutcome:
        attempts.append(clock.now())
        return Failure(JobFailure("blip")) if context.attempt == 1 else Success(None)

    async def hangs(notice: RetryNotice) -> None:
        await asyncio.Event().wait()

    engine = engine_over(
        MemoryStore(),
        clock,
        JobType("flaky", flaky, on_retry=hangs),
        concurrency=1,
        hook_timeout_seconds=20.0,
    )
    stopped_at_the_end.append(engine)
    t0 = clock.now()
    await engine.submit("flaky", {})
    await engine.start()

    await clock.run_until(lambda: len(attempts) == 2, limit_seconds=200)

    # The retry was due 1 s after the failure; the report held the slot for its 20 s deadline.
    assert attempts[1] - t0 == pytest.approx(20, abs=0.6)


# Supervision ------------------------------------------------------------------------------------------


async def test_a_background_loop_that_dies_is_restarted_and_counted_missing_meanwhile(
    clock: VirtualClock,
) -> None:
    backoff = EngineConfig().error_backoff
    supervisor = Supervisor(clock=clock, wanted_workers=1, new_backoff=lambda: Backoff(backoff, lambda: 0.5))
    deaths, running = [0], asyncio.Event()

    async def body() -> None:
        if deaths[0] < 2:
            deaths[0] += 1
            raise RuntimeError("a bug in the loop")
        running.set()
        await asyncio.Event().wait()

    task = supervisor.keep_running("loop", body, worker=True)
    await settle()
    assert supervisor.live_workers == 0
    await clock.run_until(running.is_set, limit_seconds=60)

    assert deaths == [2]
    assert supervisor.live_workers == 1
    task.cancel()
    await settle()
    assert supervisor.live_workers == 0


# Suspects run alone ------------------------------------------------------------------------------------


async def test_suspects_run_one_at_a_time_and_alone_then_the_pool_runs_wide_again(
    clock: VirtualClock, stopped_at_the_end: list[Engine]
) -> None:
    store = MemoryStore()
    for n in range(3):
        await store.enqueue(NewJob("work", {"n": f"suspect{n}"}, 3), clock.now())
    for _ in range(3):
        await store.claim("died-with-three", clock.now(), 30)
    for n in range(3):
        await store.enqueue(NewJob("work", {"n": f"fresh{n}"}, 3), clock.now())
    running: set[str] = set()
    beside: dict[str, set[str]] = {}

    async def work(context: JobContext) -> JobOutcome:
        name = str(context.payload["n"])
        beside[name] = set(running)
        running.add(name)
        await clock.sleep(5)
        beside[name] |= running - {name}
        running.discard(name)
        return Success(None)

    engine = engine_over(store, clock, JobType("work", work), sole_instance=True)
    stopped_at_the_end.append(engine)
    await engine.start()

    await drained(store, clock)

    assert {n: beside[n] for n in ("suspect0", "suspect1", "suspect2")} == {
        "suspect0": set(),
        "suspect1": set(),
        "suspect2": set(),
    }
    assert beside["fresh0"] == {"fresh1", "fresh2"}  # then three at a time again
