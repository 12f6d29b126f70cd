"""The worker pool on virtual time and the memory store: jobs run in order, side by side, wake
idle workers at once, defer themselves, enqueue others, keep what they saved."""

from __future__ import annotations

from typing import Any

import pytest
from returns.result import Failure, Success

from adapters.memory.store import MemoryStore
from core.jobs.context import JobContext
from core.jobs.engine import Engine
from core.jobs.outcome import Deferred, JobFailure, JobOutcome
from core.jobs.registry import DuplicateJobName, JobRegistry, JobType
from ports.jobs import Job, NewJob
from tests.support.clock import VirtualClock, settle
from tests.support.engine_harness import DONE, Harness, recorder


async def test_jobs_run_in_fifo_order(harness: Harness, clock: VirtualClock) -> None:
    runs: list[tuple[str, float]] = []
    engine = harness.build(harness.job_type("record", recorder(clock, runs)))
    for n in range(5):
        await harness.enqueue("record", {"n": n})
    await engine.start()
    await clock.run_until(lambda: len(runs) == 5)
    assert [n for n, _ in runs] == ["0", "1", "2", "3", "4"]
    assert (await harness.store.counts()).waiting == 0


async def test_a_job_enqueues_others_through_its_context_into_the_engine_that_runs_it(
    harness: Harness, clock: VirtualClock
) -> None:
    runs: list[tuple[str, float]] = []

    async def parent(context: JobContext) -> JobOutcome:
        for n in range(2):
            await context.jobs.submit("child", {"n": f"child{n}"}, key="site")
        return DONE

    engine = harness.build(
        harness.job_type("parent", parent), harness.job_type("child", recorder(clock, runs))
    )
    await harness.enqueue("parent")
    await engine.start()
    await clock.run_until(lambda: len(runs) == 2)

    assert [n for n, _ in runs] == ["child0", "child1"]
    assert engine.stats["completed"] == 3
    assert (await harness.store.counts()).waiting == 0


async def test_a_deferred_job_waits_in_the_queue_without_spending_attempts_or_a_worker(
    harness: Harness, clock: VirtualClock
) -> None:
    runs: list[tuple[str, float]] = []
    deferrals = 5  # more than max_attempts: deferring never uses one up

    async def waiting_for_its_turn(context: JobContext) -> JobOutcome:
        nonlocal deferrals
        runs.append(("deferring" if deferrals else "done", clock.now()))
        if deferrals:
            deferrals -= 1
            return Success(Deferred(clock.now() + 10))
        return DONE

    engine = harness.build(
        harness.job_type("deferring", waiting_for_its_turn), harness.job_type("other", recorder(clock, runs))
    )
    await harness.enqueue("deferring")
    await harness.enqueue("other", {"n": "other"})
    started = clock.now()
    await engine.start()
    await clock.run_until(lambda: len(runs) == 7, limit_seconds=120)

    assert [n for n, _ in runs] == ["deferring", "other", *["deferring"] * 4, "done"]
    assert runs[1][1] == started  # the one worker was free for the other job at once
    assert [t - started for _, t in runs[2:]] == pytest.approx([10, 20, 30, 40, 50], abs=0.6)
    assert harness.dead == []
    assert (await harness.store.counts()).waiting == 0


async def test_an_enqueue_wakes_an_idle_worker_without_time_passing(
    harness: Harness, clock: VirtualClock
) -> None:
    runs: list[tuple[str, float]] = []
    engine = harness.build(harness.job_type("record", recorder(clock, runs)))
    await engine.start()
    await settle()
    started = clock.now()
    await harness.enqueue("record", {"n": "late"})
    await settle()
    assert runs == [("late", started)]


async def test_payload_saved_by_an_attempt_is_seen_by_the_next(harness: Harness, clock: VirtualClock) -> None:
    seen: list[object] = []

    async def remembers(context: JobContext) -> JobOutcome:
        seen.append(context.payload.get("log_message_id"))
        context.payload["log_message_id"] = 42
        await context.save()
        return Failure(JobFailure("blip")) if context.attempt == 1 else Success(None)

    engine = harness.build(harness.job_type("remember", remembers))
    await harness.enqueue("remember")
    await engine.start()
    await clock.run_until(lambda: len(seen) == 2)
    assert seen == [None, 42]


async def test_an_unknown_job_name_is_dead_lettered_not_looped_on(
    harness: Harness, clock: VirtualClock
) -> None:
    engine = harness.build()
    await harness.store.enqueue(NewJob("renamed_long_ago", {}, 3), clock.now())
    await engine.start()
    await clock.advance(1)
    [failed] = await harness.store.list_failed()
    assert "unknown job name 'renamed_long_ago'" in failed.error
    assert failed.attempts == 1


def test_a_duplicate_job_name_fails_at_registration() -> None:
    async def run(context: JobContext) -> JobOutcome:
        return Success(None)

    with pytest.raises(DuplicateJobName):
        JobRegistry([JobType("download_video", run), JobType("download_video", run)])


async def test_concurrency_runs_jobs_side_by_side(harness: Harness, clock: VirtualClock) -> None:
    started: list[float] = []

    async def takes_ten(context: JobContext) -> JobOutcome:
        started.append(clock.now())
        await clock.sleep(10)
        return Success(None)

    engine = harness.build(harness.job_type("slow", takes_ten), concurrency=3)
    t0 = clock.now()
    for _ in range(6):
        await harness.enqueue("slow")
    await engine.start()
    await clock.run_until(lambda: len(started) == 6)
    assert [s - t0 for s in started] == [0, 0, 0, 10, 10, 10]


class CountedQuickClaims(MemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.quick_claims = 0

    async def claim(self, *args: Any, quick_only: bool = False, **kwargs: Any) -> Job | None:
        self.quick_claims += quick_only
        return await super().claim(*args, quick_only=quick_only, **kwargs)


async def test_the_quick_lane_looks_when_a_quick_row_arrives_not_at_every_finished_job(
    clock: VirtualClock, stopped_at_the_end: list[Engine]
) -> None:
    store = CountedQuickClaims()
    harness = Harness(clock, store)
    runs: list[tuple[str, float]] = []
    engine = harness.build(harness.job_type("record", recorder(clock, runs)), concurrency=2)
    stopped_at_the_end.append(engine)
    await engine.start()
    await settle()
    looked_at_start = store.quick_claims

    for n in range(10):
        await harness.enqueue("record", {"n": n})
    await settle()
    assert len(runs) == 10
    assert store.quick_claims == looked_at_start  # ten jobs let go of their rows: no look

    await engine.enqueue(engine.new_job("record", {"n": "quick"}, quick=True))
    await settle()
    assert runs[-1][0] == "quick"
    assert store.quick_claims > looked_at_start
