"""A failing attempt, as the engine takes it: transient ones back off and die at the end,
permanent ones do not retry, deadlines and crashes are transient, a site's burst of failures
pauses that site only."""

from __future__ import annotations

import asyncio

import pytest
from returns.result import Failure, Success

from core.jobs.breaker import BreakerPolicy, CircuitBreakers
from core.jobs.context import JobContext
from core.jobs.outcome import JobFailure, JobOutcome
from tests.support.clock import VirtualClock, settle
from tests.support.engine_harness import Harness, recorder


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
