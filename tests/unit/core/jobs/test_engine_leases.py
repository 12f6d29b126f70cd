"""Fenced leases under a live worker: a stale worker changes nothing, the heartbeat keeps a long
attempt held, a lease the store says is lost stops its attempt without a finishing write."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from returns.result import Failure, Success

from adapters.memory.store import MemoryStore
from core.jobs.context import JobContext
from core.jobs.engine import Engine
from core.jobs.hooks import RetryNotice
from core.jobs.outcome import JobFailure, JobOutcome
from core.jobs.registry import JobType
from tests.support.clock import VirtualClock, settle
from tests.support.faulty_engine import CONFIG, CountedEvents, drained, engine_over
from tests.support.faulty_queue import FaultyQueue


async def test_a_stale_worker_whose_lease_expired_during_a_hook_changes_nothing(
    clock: VirtualClock, stopped_at_the_end: list[Engine], caplog: pytest.LogCaptureFixture
) -> None:
    """Worker a's heartbeat cannot reach the store while its retry report waits on flood control;
    its lease ends, so a's attempt stops at once (its lease watch), worker b takes the row over and
    delivers; a writes nothing."""
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

    assert delivered == [("b", 2)]  # a's stale attempt did not bring the row back
    assert "job's lease could not be renewed before its end: its attempt stops now" in caplog.text
    assert "its retry changed nothing" not in caplog.text  # a never tried: it had stopped
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
