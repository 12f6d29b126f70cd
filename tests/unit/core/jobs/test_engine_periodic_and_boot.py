"""Periodic jobs tick and never stack; at boot, the jobs that used up their attempts are buried
without running, and a periodic job whose process died is dropped."""

from __future__ import annotations

import asyncio

from returns.result import Failure, Success

from core.jobs.context import JobContext
from core.jobs.outcome import JobFailure, JobOutcome
from ports.jobs import NewJob
from tests.support.clock import VirtualClock
from tests.support.engine_harness import Harness, recorder


async def test_jobs_that_used_up_their_attempts_are_buried_at_boot_without_running(
    harness: Harness, clock: VirtualClock
) -> None:
    runs: list[tuple[str, float]] = []
    engine = harness.build(harness.job_type("poison", recorder(clock, runs)))
    job_id = await harness.store.enqueue(NewJob("poison", {"chat_id": 7}, 3), clock.now())
    assert job_id is not None
    for boot in range(3):  # three boots, each killed mid-job alone: the claims happened, nothing else did
        await harness.store.claim(f"dead-process-{boot}", clock.now(), 60)
        await harness.store.recover("test-worker")
    gave_up = await engine.start()
    await clock.advance(10)
    assert gave_up == 1
    assert runs == []
    assert [d.job.id for d in harness.dead] == [job_id]
    assert "gave up after 3 attempts" in harness.dead[0].reason


async def test_periodic_jobs_tick_and_never_stack(harness: Harness, clock: VirtualClock) -> None:
    ticks: list[float] = []
    gate = asyncio.Event()

    async def sweep(context: JobContext) -> JobOutcome:
        ticks.append(clock.now())
        if len(ticks) == 3:
            await gate.wait()
        return Success(None)

    engine = harness.build(harness.job_type("sweep_blobs", sweep, interval_seconds=10.0), concurrency=2)
    t0 = clock.now()
    await engine.start()
    await clock.advance(25)
    assert [t - t0 for t in ticks] == [0.0, 10.0, 20.0]
    await clock.advance(50)  # five more ticks while the third run is stuck
    assert len(ticks) == 3
    assert (await harness.store.counts()).waiting + (await harness.store.counts()).running == 1
    gate.set()
    await clock.advance(10)
    assert len(ticks) == 4


async def test_a_failing_periodic_job_is_logged_and_tried_again_next_tick(
    harness: Harness, clock: VirtualClock
) -> None:
    runs: list[tuple[str, float]] = []
    engine = harness.build(
        harness.job_type(
            "update_ytdlp", recorder(clock, runs, Failure(JobFailure("index down"))), interval_seconds=300.0
        )
    )
    await engine.start()
    await clock.advance(601)
    assert len(runs) == 3
    assert await harness.store.list_failed() == []


async def test_a_periodic_job_whose_process_died_is_dropped_not_dead_lettered(
    harness: Harness, clock: VirtualClock
) -> None:
    runs: list[tuple[str, float]] = []
    engine = harness.build(harness.job_type("sweep_blobs", recorder(clock, runs), interval_seconds=3600.0))
    await harness.store.enqueue(NewJob("sweep_blobs", {}, 1), clock.now())
    await harness.store.claim("dead-process", clock.now(), 60)
    await harness.store.recover("test-worker")
    gave_up = await engine.start()
    await clock.advance(1)
    assert gave_up == 0
    assert await harness.store.list_failed() == []
    assert len(runs) == 1  # the boot tick ran it afresh
