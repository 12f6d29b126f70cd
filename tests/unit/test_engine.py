"""The worker pool on virtual time and the memory store: no real sleeps anywhere."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from returns.result import Failure, Success

from adapters.memory.store import MemoryStore
from core.jobs.breaker import BreakerPolicy, CircuitBreakers
from core.jobs.context import DeadJob, JobContext
from core.jobs.engine import Engine, EngineConfig
from core.jobs.outcome import Deferred, JobFailure, JobOutcome
from core.jobs.registry import DuplicateJobName, JobRegistry, JobType
from core.lifecycle.retry_policy import RetryPolicy
from ports.jobs import Job, NewJob
from tests.support.clock import VirtualClock, settle

Handler = Callable[[JobContext], Awaitable[JobOutcome]]


class Harness:
    def __init__(self, clock: VirtualClock, store: MemoryStore) -> None:
        self.clock = clock
        self.store = store
        self.engine: Engine | None = None
        self.dead: list[DeadJob] = []

    def build(self, *types: JobType, concurrency: int = 1, breakers: CircuitBreakers | None = None) -> Engine:
        config = EngineConfig(
            concurrency=concurrency,
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


@pytest.fixture
async def harness(clock: VirtualClock) -> AsyncIterator[Harness]:
    h = Harness(clock, MemoryStore())
    yield h
    if h.engine is not None:
        await h.engine.stop(grace_seconds=0)


DONE: JobOutcome = Success(None)


def recorder(clock: VirtualClock, log: list[tuple[str, float]], outcome: JobOutcome = DONE) -> Handler:
    async def run(context: JobContext) -> JobOutcome:
        log.append((str(context.payload.get("n", "")), clock.now()))
        return outcome

    return run


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


async def test_transient_failures_back_off_exponentially_then_die(
    harness: Harness, clock: VirtualClock
) -> None:
    runs: list[tuple[str, float]] = []
    failing = recorder(clock, runs, Failure(JobFailure("HTTP Error 503")))
    engine = harness.build(harness.job_type("flaky", failing))
    await harness.enqueue("flaky")
    t0 = clock.now()
    await engine.start()
    await clock.run_until(lambda: len(harness.dead) == 1, step=0.25)
    assert [at - t0 for _, at in runs] == [0.0, 1.0, 3.0]
    failed = await harness.store.list_failed()
    assert [(f.name, f.attempts, f.error) for f in failed] == [("flaky", 3, "HTTP Error 503")]
    assert harness.dead[0].reason == "HTTP Error 503"


async def test_a_permanent_failure_is_not_retried(harness: Harness, clock: VirtualClock) -> None:
    runs: list[tuple[str, float]] = []
    engine = harness.build(
        harness.job_type("bad", recorder(clock, runs, Failure(JobFailure("Unsupported URL", permanent=True))))
    )
    await harness.enqueue("bad")
    await engine.start()
    await clock.run_until(lambda: len(harness.dead) == 1)
    await clock.advance(600)
    assert len(runs) == 1


async def test_retry_after_delays_the_retry_at_least_that_long(harness: Harness, clock: VirtualClock) -> None:
    runs: list[tuple[str, float]] = []

    async def flood_once(context: JobContext) -> JobOutcome:
        runs.append(("", clock.now()))
        if context.attempt == 1:
            return Failure(JobFailure("Too Many Requests", retry_after=30))
        return Success(None)

    engine = harness.build(harness.job_type("send", flood_once))
    await harness.enqueue("send")
    await engine.start()
    await clock.run_until(lambda: len(runs) == 2)
    assert runs[1][1] - runs[0][1] == pytest.approx(30, abs=0.5)


async def test_a_backing_off_job_does_not_block_others(harness: Harness, clock: VirtualClock) -> None:
    runs: list[tuple[str, float]] = []

    async def first_fails(context: JobContext) -> JobOutcome:
        runs.append((str(context.payload["n"]), clock.now()))
        if context.payload["n"] == 0 and context.attempt == 1:
            return Failure(JobFailure("blip"))
        return Success(None)

    engine = harness.build(harness.job_type("mixed", first_fails))
    t0 = clock.now()
    for n in range(3):
        await harness.enqueue("mixed", {"n": n})
    await engine.start()
    await clock.run_until(lambda: len(runs) == 4)
    assert [(n, at - t0) for n, at in runs] == [("0", 0.0), ("1", 0.0), ("2", 0.0), ("0", 1.0)]


async def test_an_attempt_past_its_deadline_is_cancelled_and_retried(
    harness: Harness, clock: VirtualClock
) -> None:
    cancelled: list[int] = []

    async def hangs(context: JobContext) -> JobOutcome:
        try:
            await clock.sleep(10_000)
        except asyncio.CancelledError:
            cancelled.append(context.attempt)
            raise
        return Success(None)

    engine = harness.build(harness.job_type("hang", hangs, timeout_seconds=60.0))
    await harness.enqueue("hang")
    await engine.start()
    await clock.run_until(lambda: len(harness.dead) == 1, limit_seconds=1000, step=5)
    assert cancelled == [1, 2, 3]
    assert harness.dead[0].reason == "Timed out after 60 seconds"


async def test_a_crashing_handler_is_a_transient_failure_with_its_traceback_kept(
    harness: Harness, clock: VirtualClock
) -> None:
    async def boom(context: JobContext) -> JobOutcome:
        raise RuntimeError("bug in handler")

    engine = harness.build(harness.job_type("boom", boom))
    await harness.enqueue("boom")
    await engine.start()
    await clock.run_until(lambda: len(harness.dead) == 1, step=1)
    [failed] = await harness.store.list_failed()
    assert failed.attempts == 3
    assert "RuntimeError: bug in handler" in failed.error
    assert "Traceback" in failed.error


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


async def test_a_burst_of_failures_pauses_that_site_only_until_the_cooldown(
    harness: Harness, clock: VirtualClock
) -> None:
    runs: list[tuple[str, float]] = []

    async def site_down(context: JobContext) -> JobOutcome:
        runs.append((str(context.payload["n"]), clock.now()))
        if context.job.key == "down.example":
            return Failure(JobFailure("HTTP Error 503"))
        return Success(None)

    breakers = CircuitBreakers(BreakerPolicy(threshold=2, window_seconds=60, cooldown_seconds=100))
    engine = harness.build(harness.job_type("download", site_down), breakers=breakers)
    t0 = clock.now()
    for n in range(2):
        await harness.enqueue("download", {"n": f"down{n}"}, key="down.example")
    await harness.enqueue("download", {"n": "waiting"}, key="down.example")
    await harness.enqueue("download", {"n": "up"}, key="up.example")
    await engine.start()
    await clock.advance(50)
    assert [n for n, _ in runs] == ["down0", "down1", "up"]
    assert (await harness.store.list_failed()) == []
    await clock.advance(60)
    after = [(n, at - t0) for n, at in runs[3:]]
    assert after[:2] == [("down0", 100.0), ("down1", 100.0)]
    waiting = [j for j in await harness.store.list_jobs() if j.payload["n"] == "waiting"]
    assert [j.attempts for j in waiting] == [0]  # paused, not failed


async def test_closing_the_breakers_wakes_the_paused_jobs_at_once(
    harness: Harness, clock: VirtualClock
) -> None:
    runs: list[tuple[str, float]] = []

    async def fails_once(context: JobContext) -> JobOutcome:
        runs.append((str(context.payload["n"]), clock.now()))
        return Failure(JobFailure("503")) if context.attempt == 1 else Success(None)

    breakers = CircuitBreakers(BreakerPolicy(threshold=1, window_seconds=60, cooldown_seconds=1000))
    engine = harness.build(harness.job_type("download", fails_once), breakers=breakers)
    await harness.enqueue("download", {"n": "a"}, key="site")
    await harness.enqueue("download", {"n": "b"}, key="site")
    await engine.start()
    await clock.advance(5)
    assert [n for n, _ in runs] == ["a"]
    engine.close_breakers()
    await settle()
    assert [n for n, _ in runs] == ["a", "a", "b"]


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
