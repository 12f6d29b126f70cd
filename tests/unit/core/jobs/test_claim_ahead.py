"""Claiming ahead (core.jobs.ahead): a worker of short jobs holds several, and lets them go as
soon as holding them could make them wait."""

from __future__ import annotations

import asyncio

from adapters.memory.store import MemoryStore
from core.jobs.context import JobContext
from core.jobs.engine import Engine
from core.jobs.outcome import JobOutcome
from tests.support.clock import VirtualClock, settle
from tests.support.engine_harness import DONE, Handler, Harness


def held_rows(store: MemoryStore) -> list[str]:
    return sorted(str(j.payload["n"]) for j in store._tables.jobs.values() if j.claimed_by is not None)


async def free_rows(store: MemoryStore) -> dict[str, int]:
    """The rows any claim may take, with the attempts charged to them."""
    return {str(j.payload["n"]): j.attempts for j in await store.list_jobs() if j.claimed_by is None}


async def start_after_three_short_jobs(harness: Harness, run: Handler, then: str) -> Engine:
    """One worker, its queue: three short jobs, then `then`, then "a" and "b"; started."""
    engine = harness.build(harness.job_type("record", run))
    for n in ("s1", "s2", "s3", then, "a", "b"):
        await harness.enqueue("record", {"n": n})
    await engine.start()
    await settle()
    return engine


async def test_a_worker_of_short_jobs_holds_the_next_ones_while_it_runs_one(
    harness: Harness, clock: VirtualClock
) -> None:
    held_while_running: list[int] = []

    async def short(context: JobContext) -> JobOutcome:
        held_while_running.append(len(held_rows(harness.store)))
        return DONE

    engine = harness.build(harness.job_type("short", short))
    for n in range(8):
        await harness.enqueue("short", {"n": n})
    await engine.start()
    await clock.advance(1)

    assert len(held_while_running) == 8
    assert held_while_running[:3] == [1, 1, 1]  # not before three jobs in a row were short
    assert max(held_while_running) > 1
    assert await harness.store.list_jobs() == []


async def test_jobs_claimed_ahead_go_back_unrun_once_the_running_job_takes_long(
    harness: Harness, clock: VirtualClock
) -> None:
    runs: list[tuple[str, float]] = []

    async def record(context: JobContext) -> JobOutcome:
        runs.append((str(context.payload["n"]), clock.now()))
        if context.payload["n"] == "long":
            await clock.sleep(60)
        return DONE

    await start_after_three_short_jobs(harness, record, "long")
    assert [n for n, _ in runs] == ["s1", "s2", "s3", "long"]
    assert held_rows(harness.store) == ["a", "b", "long"]  # claimed ahead after three short jobs

    await clock.advance(1)
    # Free for any worker or process again, their attempts given back: the claim cost them nothing.
    assert held_rows(harness.store) == ["long"]
    assert await free_rows(harness.store) == {"a": 0, "b": 0}

    await clock.advance(60)
    assert [n for n, _ in runs] == ["s1", "s2", "s3", "long", "a", "b"]
    assert await harness.store.list_jobs() == []


async def test_a_stop_gives_back_the_jobs_claimed_ahead(harness: Harness, clock: VirtualClock) -> None:
    go = asyncio.Event()
    runs: list[str] = []

    async def record(context: JobContext) -> JobOutcome:
        runs.append(str(context.payload["n"]))
        if context.payload["n"] == "waits":
            await go.wait()  # no time passes: the jobs held ahead stay held until the stop
        return DONE

    engine = await start_after_three_short_jobs(harness, record, "waits")
    assert held_rows(harness.store) == ["a", "b", "waits"]

    stopping = asyncio.ensure_future(engine.stop(grace_seconds=30))
    await settle()
    go.set()
    await stopping
    harness.engine = None

    assert runs == ["s1", "s2", "s3", "waits"]
    assert await free_rows(harness.store) == {"a": 0, "b": 0}


async def test_one_claim_at_a_time_when_claiming_ahead_is_off(clock: VirtualClock) -> None:
    harness = Harness(clock, MemoryStore())
    held_while_running: list[int] = []

    async def short(context: JobContext) -> JobOutcome:
        held_while_running.append(len(held_rows(harness.store)))
        return DONE

    engine = harness.build(harness.job_type("short", short), claim_ahead=1)
    for n in range(5):
        await harness.enqueue("short", {"n": n})
    await engine.start()
    await clock.advance(1)
    await engine.stop(grace_seconds=0)
    harness.engine = None

    assert held_while_running == [1] * 5
