"""The engine over the real SQLite store: what group commit buys on the hot path."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from returns.result import Success

from adapters.sqlite import SqliteStore
from adapters.system.clock import SystemClock
from core.jobs.context import JobContext
from core.jobs.engine import Engine, EngineConfig
from core.jobs.outcome import JobOutcome
from core.jobs.registry import JobRegistry, JobType
from ports.jobs import Lease, NewJob

JOBS = 30


class CountingStore(SqliteStore):
    """Notes how many transactions had run when each job's deletion was committed."""

    done_at: list[int]
    all_done: asyncio.Event

    async def complete(self, lease: Lease) -> bool:
        landed = await super().complete(lease)
        self.done_at.append(self.transactions)
        if len(self.done_at) == JOBS:
            self.all_done.set()
        return landed


async def run_jobs(path: Path, concurrency: int, claim_ahead: int = 3) -> tuple[CountingStore, list[int]]:
    store = await CountingStore.open(path)
    store.done_at, store.all_done = [], asyncio.Event()
    order: list[int] = []

    async def note(context: JobContext) -> JobOutcome:
        order.append(int(str(context.payload["n"])))
        return Success(None)

    for n in range(JOBS):
        await store.enqueue(NewJob("note", {"n": n}, 3), 0.0)
    registry = JobRegistry([JobType("note", note, timeout_seconds=30.0)])
    config = EngineConfig(concurrency, claim_ahead=claim_ahead)
    engine = Engine(store, SystemClock(), registry, config, random.random, "test")
    await engine.start()
    try:
        await asyncio.wait_for(store.all_done.wait(), timeout=30)
    finally:
        await engine.stop(1.0)
    return store, order


async def test_a_deletion_and_the_next_claim_share_one_commit(tmp_path: Path) -> None:
    store, order = await run_jobs(tmp_path / "vidrelay.db", concurrency=1, claim_ahead=1)
    try:
        assert order == list(range(JOBS))
        steps = [later - earlier for earlier, later in zip(store.done_at, store.done_at[1:], strict=False)]
        assert steps == [1] * (JOBS - 1)  # claim+run+delete costs one transaction per job, not two
        assert await store.list_jobs() == []
    finally:
        await store.close()


async def test_a_worker_of_short_jobs_claims_ahead_so_a_commit_carries_several(tmp_path: Path) -> None:
    store, order = await run_jobs(tmp_path / "vidrelay.db", concurrency=1)
    try:
        assert order == list(range(JOBS))  # one worker still takes them in the queue's order
        spent = store.done_at[-1] - store.done_at[0]
        # Three short jobs one at a time, then several per commit; one at a time all the way
        # takes a commit per job (the test above): 29.
        assert spent <= 3 + JOBS // 2
        assert await store.list_jobs() == []
    finally:
        await store.close()


async def test_three_workers_share_commits_with_each_other(tmp_path: Path) -> None:
    store, order = await run_jobs(tmp_path / "vidrelay.db", concurrency=3)
    try:
        assert sorted(order) == list(range(JOBS))
        spent = store.done_at[-1] - store.done_at[0]
        assert spent <= JOBS // 2  # a commit carries several workers' deletions and claims
        assert await store.list_jobs() == []
    finally:
        await store.close()
