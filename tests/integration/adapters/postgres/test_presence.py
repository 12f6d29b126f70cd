"""Dead workers found by their sessions: the rows of a process whose connections are all gone come
back within seconds, long before their leases end; a live process that reconnects within the grace
keeps its rows; a process the server still sees keeps them until its leases end."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg
import pytest

from adapters.postgres import PostgresStore
from adapters.postgres.limits import SessionLimits
from adapters.system.clock import SystemClock
from ports.jobs import Job, NewJob
from testkit.postgres import PostgresServer
from testkit.tcp_proxy import TcpProxy

NOW = 1_700_000_000.0
LEASE = 600.0
"""Far longer than any test: what comes back here comes back by presence, not by lease."""
PATIENCE = 30.0
QUICK_TO_CONNECT = SessionLimits(connect_seconds=1.0)


@pytest.fixture
async def other(pg_migrated_dsn: str) -> AsyncIterator[PostgresStore]:
    """The surviving worker process's store (its own session), that takes back what the dead left."""
    store = await PostgresStore.open(
        pg_migrated_dsn, node="survivor", presence_grace_seconds=1.0, clock=SystemClock()
    )
    yield store
    await store.close()


async def sessions_of(dsn: str, store: PostgresStore) -> int:
    connection = await asyncpg.connect(dsn)
    try:
        count: int = await connection.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", store.session
        )
        return count
    finally:
        await connection.close()


async def missing_since(dsn: str, worker: str) -> float | None:
    connection = await asyncpg.connect(dsn)
    try:
        seen: float | None = await connection.fetchval(
            "SELECT missing_since FROM vidrelay_holders WHERE worker = $1", worker
        )
        return seen
    finally:
        await connection.close()


async def claimed_in_time(store: PostgresStore, worker: str) -> Job:
    """Claims again (each claim may probe) until one returns a row, within PATIENCE."""
    deadline = asyncio.get_running_loop().time() + PATIENCE
    while (job := await store.claim(worker, NOW, LEASE)) is None:
        assert asyncio.get_running_loop().time() < deadline, "nothing came back"
        await asyncio.sleep(0.1)
    return job


async def test_the_rows_of_a_process_whose_sessions_ended_come_back_long_before_their_leases(
    pg_migrated_dsn: str, other: PostgresStore
) -> None:
    dying = await PostgresStore.open(pg_migrated_dsn, node="dying", clock=SystemClock())
    ids = [await dying.enqueue(NewJob("noop", {"n": n}, 3), NOW) for n in range(2)]
    held = [await dying.claim("dying-worker", NOW, LEASE) for _ in ids]
    assert [job.id for job in held if job is not None] == ids
    assert await other.claim("survivor-worker", NOW, LEASE) is None  # alive: its leases run
    await dying.close()  # every session of the process ends, as at a SIGKILL
    assert await sessions_of(pg_migrated_dsn, dying) == 0

    back = [await claimed_in_time(other, "survivor-worker")]
    back.append(await claimed_in_time(other, "another-survivor"))  # a suspect runs alone

    assert sorted(job.id for job in back) == ids
    assert [(job.suspect, job.attempts) for job in back] == [(True, 1), (True, 1)]  # refunded: it held two


async def test_a_process_that_reconnects_within_the_grace_keeps_its_rows(
    pg_migrated_dsn: str, postgres_server: PostgresServer
) -> None:
    survivor = await PostgresStore.open(
        pg_migrated_dsn, node="survivor", presence_grace_seconds=20.0, clock=SystemClock()
    )
    async with TcpProxy(postgres_server.host, postgres_server.port) as proxy:
        through = proxy.dsn_through(pg_migrated_dsn, postgres_server.port)
        alive = await PostgresStore.open(through, node="alive", limits=QUICK_TO_CONNECT, clock=SystemClock())
        try:
            alive.on_work(lambda: None)  # its listener reconnects by itself, as a worker's does
            job_id = await alive.enqueue(NewJob("noop", {}, 3), NOW)
            assert await alive.claim("alive-worker", NOW, LEASE) is not None
            proxy.silence()
            proxy.cut()  # every session ends; reconnecting hangs for now

            await until(lambda: missing_since(pg_migrated_dsn, "alive-worker"), survivor, want=True)
            proxy.resume()
            await until(lambda: missing_since(pg_migrated_dsn, "alive-worker"), survivor, want=False)

            [row] = [j for j in await survivor.list_jobs() if j.id == job_id]
            assert row.claimed_by == "alive-worker"
        finally:
            await alive.close()
            await survivor.close()


async def until(seen: Callable[[], Awaitable[float | None]], survivor: PostgresStore, *, want: bool) -> None:
    """Until the survivor's probes noted the absence (`want`) or saw the process again; its claims
    meanwhile take nothing."""
    deadline = asyncio.get_running_loop().time() + PATIENCE
    while (await seen() is not None) != want:
        assert await survivor.claim("survivor-worker", NOW, LEASE) is None
        assert asyncio.get_running_loop().time() < deadline, "the probe never saw it"
        await asyncio.sleep(0.1)


async def test_a_registration_lost_while_the_process_lived_comes_back_with_its_next_probe(
    pg_migrated_dsn: str, other: PostgresStore
) -> None:
    assert await other.claim("survivor-worker", NOW, LEASE) is None  # registered by its first claim
    connection = await asyncpg.connect(pg_migrated_dsn)
    try:
        await connection.execute("DELETE FROM vidrelay_holders")  # as a probe of another process would
        deadline = asyncio.get_running_loop().time() + PATIENCE
        while not await connection.fetchval(
            "SELECT count(*) FROM vidrelay_holders WHERE worker = 'survivor-worker'"
        ):
            assert asyncio.get_running_loop().time() < deadline, "it was never registered again"
            assert await other.claim("survivor-worker", NOW, LEASE) is None
            await asyncio.sleep(0.1)
    finally:
        await connection.close()
