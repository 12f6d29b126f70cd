"""The engine when its own parts misbehave, on virtual time: handlers and hooks that overrun their
deadline, loops that die, suspects of a dead process. Nothing is lost, nothing runs twice, no
error escapes."""

from __future__ import annotations

import asyncio

import pytest
from returns.result import Failure, Success

from adapters.memory.store import MemoryStore
from core.jobs.backoff import Backoff
from core.jobs.config import EngineConfig
from core.jobs.context import JobContext
from core.jobs.engine import Engine
from core.jobs.hooks import RetryNotice
from core.jobs.outcome import JobFailure, JobOutcome
from core.jobs.registry import JobType
from core.jobs.supervision import Supervisor
from ports.jobs import NewJob
from tests.support.clock import VirtualClock, settle
from tests.support.faulty_engine import CONFIG, drained, engine_over


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
