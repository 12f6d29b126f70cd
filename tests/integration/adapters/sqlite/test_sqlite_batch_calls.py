"""A group commit's calls on the connection (each a hop to aiosqlite's thread) do not grow with its
jobs: one statement per kind of operation for all of them, between BEGIN and COMMIT."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Sequence
from pathlib import Path

import pytest

from adapters.sqlite import SqliteStore
from ports.jobs import HandledUrlGuard, Job, Lease
from tests.support.sqlite_files import NOW, RecordingConnection, job


@pytest.fixture
async def recorded(path: Path) -> AsyncIterator[SqliteStore]:
    store = await SqliteStore.open(path, connection_class=RecordingConnection)
    try:
        yield store
    finally:
        await store.close()


async def calls(store: SqliteStore, operations: Sequence[Awaitable[object]]) -> tuple[int, list[object]]:
    """How many calls the store made on its connection to run `operations`, as one group commit."""
    before = store.transactions
    RecordingConnection.statements = []
    answers = await asyncio.gather(*operations)
    assert store.transactions == before + 1
    return len(RecordingConnection.statements), answers


async def claims(store: SqliteStore, count: int, *, beside_quick: bool = False) -> list[Job]:
    spent, got = await calls(
        store,
        [store.claim("w", NOW, 60) for _ in range(count)]
        + ([store.claim("w", NOW, 60, quick_only=True)] if beside_quick else []),
    )
    assert spent == 3  # BEGIN, one UPDATE ... RETURNING, COMMIT
    return [j for j in got if isinstance(j, Job)]


async def test_enqueues_cost_the_same_calls_for_one_job_and_for_fifty(recorded: SqliteStore) -> None:
    one, _ = await calls(recorded, [recorded.enqueue(job(n=0), NOW)])
    fifty, ids = await calls(recorded, [recorded.enqueue(job(n=n), NOW) for n in range(1, 51)])

    assert fifty == one == 4  # BEGIN, one executemany, the last id, COMMIT
    assert ids == list(range(2, 52))


async def test_guarded_enqueues_cost_the_same_calls_for_one_job_and_for_fifty(recorded: SqliteStore) -> None:
    def guarded(n: int) -> Awaitable[int | None]:
        return recorded.enqueue(job(n=n), NOW, HandledUrlGuard(1, n, f"https://example.com/{n}"))

    one, _ = await calls(recorded, [guarded(0)])
    fifty, ids = await calls(recorded, [guarded(n) for n in (0, *range(1, 50), 49)])

    assert fifty == one == 6  # BEGIN, the marks there, one executemany, the last id, the new marks, COMMIT
    assert ids == [None, *range(2, 51), None]  # a mark handled before, and twice in the batch


async def test_completions_and_claims_cost_the_same_calls_for_one_worker_and_for_thirty(
    recorded: SqliteStore,
) -> None:
    await asyncio.gather(*(recorded.enqueue(job(n=n), NOW) for n in range(62)))
    alone, thirty = await claims(recorded, 1), await claims(recorded, 30, beside_quick=True)

    one, landed = await calls(recorded, [recorded.complete(alone[0].lease), recorded.claim("w", NOW, 60)])
    many, landed_too = await calls(
        recorded,
        [recorded.complete(j.lease) for j in thirty] + [recorded.claim("w", NOW, 60) for _ in thirty],
    )

    assert many == one == 4  # BEGIN, one DELETE ... RETURNING, one UPDATE ... RETURNING, COMMIT
    assert landed[0] is True
    assert landed_too[:30] == [True] * 30
    assert [j.payload["n"] for j in landed_too[30:] if isinstance(j, Job)] == list(range(32, 62))


async def test_a_heartbeat_costs_the_same_calls_for_one_lease_and_for_thirty(recorded: SqliteStore) -> None:
    await asyncio.gather(*(recorded.enqueue(job(n=n), NOW) for n in range(31)))
    held = [j.lease for j in await claims(recorded, 31)]

    one, _ = await calls(recorded, [recorded.renew("w", held[:1], NOW, 60)])
    thirty, lost = await calls(recorded, [recorded.renew("w", [*held, Lease(99, 1)], NOW, 60)])

    assert thirty == one
    assert lost == [[Lease(99, 1)]]
