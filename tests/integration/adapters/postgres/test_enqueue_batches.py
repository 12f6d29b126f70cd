"""The PostgreSQL store writes the enqueues in flight at once with one statement (enqueues.py):
one transaction for a burst, and a row the server refuses fails alone."""

from __future__ import annotations

import asyncio

import asyncpg

from adapters.postgres import PostgresStore
from ports.errors import StoreError
from ports.jobs import NewJob

NOW = 1_700_000_000.0


async def test_a_burst_of_enqueues_is_one_transaction(
    two_stores: tuple[PostgresStore, PostgresStore], pg_dsn: str
) -> None:
    store, _ = two_stores

    ids = await asyncio.gather(*(store.enqueue(NewJob("noop", {"n": n}, 3), NOW) for n in range(20)))

    assert ids == sorted(i for i in ids if i is not None)
    connection = await asyncpg.connect(pg_dsn)
    try:
        # Rows written by one transaction carry its id.
        assert await connection.fetchval("SELECT count(DISTINCT xmin::text) FROM jobs") == 1
        assert await connection.fetchval("SELECT count(*) FROM jobs") == 20
    finally:
        await connection.close()


async def test_a_row_the_server_refuses_fails_alone_and_the_others_are_written(
    two_stores: tuple[PostgresStore, PostgresStore],
) -> None:
    store, _ = two_stores
    refused = NewJob("noop", {}, 3, key="a\x00b")  # PostgreSQL text cannot hold a NUL

    first, bad, last = await asyncio.gather(
        store.enqueue(NewJob("noop", {"n": 1}, 3), NOW),
        store.enqueue(refused, NOW),
        store.enqueue(NewJob("noop", {"n": 2}, 3), NOW),
        return_exceptions=True,
    )

    assert isinstance(bad, StoreError)
    assert isinstance(first, int)
    assert isinstance(last, int)
    assert sorted(job.id for job in await store.list_jobs()) == [first, last]


async def test_a_batch_whose_round_trip_is_lost_fails_every_caller_and_the_next_goes_through(
    two_stores: tuple[PostgresStore, PostgresStore], pg_dsn: str
) -> None:
    store, _ = two_stores
    killer = await asyncpg.connect(pg_dsn)
    try:
        # The batch's connection is cut while its statement waits for a lock the killer holds.
        await killer.execute("BEGIN; LOCK TABLE jobs IN EXCLUSIVE MODE")
        batch = asyncio.gather(
            *(store.enqueue(NewJob("noop", {"n": n}, 3), NOW) for n in range(5)), return_exceptions=True
        )
        async with asyncio.timeout(20):
            while not await killer.fetchval(_WAITS):  # noqa: ASYNC110 - the server's state
                await asyncio.sleep(0.01)
        await killer.execute(_CUT_THE_WAITER)
        await killer.execute("COMMIT")

        answers = await asyncio.wait_for(batch, 30)

        assert all(isinstance(answer, StoreError) for answer in answers), answers
        assert await store.list_jobs() == []
        assert await store.enqueue(NewJob("noop", {"n": 9}, 3), NOW) is not None
    finally:
        await killer.close()


_WAITS = "SELECT count(*) > 0 FROM pg_locks WHERE relation = 'jobs'::regclass AND NOT granted"
_CUT_THE_WAITER = """
    SELECT pg_terminate_backend(pid) FROM pg_locks
    WHERE relation = 'jobs'::regclass AND NOT granted
"""
