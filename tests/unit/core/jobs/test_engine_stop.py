"""Stopping the engine: in-flight jobs finish within the grace, later ones are cancelled with
their attempt refunded, a claim under way is let go, and nothing is left behind."""

from __future__ import annotations

import asyncio

from returns.result import Success

from core.jobs.context import JobContext
from core.jobs.outcome import JobOutcome
from ports.jobs import NewJob
from tests.support.clock import VirtualClock, settle
from tests.support.engine_harness import Harness, SlowClaims, recorder


async def test_stop_lets_an_in_flight_job_finish_within_the_grace(
    harness: Harness, clock: VirtualClock
) -> None:
    finished: list[int] = []

    async def slow(context: JobContext) -> JobOutcome:
        await clock.sleep(5)
        finished.append(context.job.id)
        return Success(None)

    engine = harness.build(harness.job_type("slow", slow))
    first = await harness.enqueue("slow")
    second = await harness.enqueue("slow")
    await engine.start()
    await settle()
    stopping = asyncio.create_task(engine.stop(grace_seconds=30))
    await clock.advance(6)
    await stopping
    assert finished == [first]
    [left] = await harness.store.list_jobs()
    assert (left.id, left.attempts, left.claimed_by) == (second, 0, None)


async def test_stop_after_the_grace_cancels_and_refunds_the_attempt(
    harness: Harness, clock: VirtualClock
) -> None:
    async def endless(context: JobContext) -> JobOutcome:
        await clock.sleep(10_000)
        return Success(None)

    engine = harness.build(harness.job_type("endless", endless, timeout_seconds=100_000.0))
    job_id = await harness.enqueue("endless")
    await engine.start()
    await settle()
    stopping = asyncio.create_task(engine.stop(grace_seconds=30))
    await clock.advance(31)
    await stopping
    [left] = await harness.store.list_jobs()
    assert (left.id, left.attempts, left.claimed_by) == (job_id, 0, None)


async def test_stop_leaves_no_timer_or_task_behind(harness: Harness, clock: VirtualClock) -> None:
    engine = harness.build(
        harness.job_type("sweep", recorder(clock, []), interval_seconds=60.0),
        harness.job_type("work", recorder(clock, [])),
        concurrency=3,
    )
    before = asyncio.all_tasks()
    await engine.start()
    await harness.enqueue("work")
    await clock.advance(5)
    assert clock.sleepers > 0
    await engine.stop(grace_seconds=10)
    await settle()
    assert clock.sleepers == 0
    assert asyncio.all_tasks() == before


async def test_stop_during_a_claim_releases_the_claimed_job_with_its_attempt(clock: VirtualClock) -> None:
    store = SlowClaims()
    harness = Harness(clock, store)
    engine = harness.build(harness.job_type("work", recorder(clock, [])))
    job_id = await store.enqueue(NewJob("work", {}, 3), clock.now())
    await engine.start()
    await settle()
    assert store.claims == 2  # the worker's and the quick lane's, both waiting for their answer
    stopping = asyncio.create_task(engine.stop(grace_seconds=30))
    await settle()
    store.answer.set()
    await stopping
    [left] = await store.list_jobs()
    assert (left.id, left.attempts, left.claimed_by) == (job_id, 0, None)
