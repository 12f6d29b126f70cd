"""Every wait of the PostgreSQL store has an end, on both sides of the wire: the server stops a
statement past its timeout and drops a session idle in a transaction, both ends probe an idle
connection, and shutting down over a silent network ends within its bound."""

from __future__ import annotations

import asyncio
import subprocess
from dataclasses import replace

import asyncpg
import pytest

from adapters.postgres import PostgresStore
from adapters.postgres.connection import connect, open_pool
from adapters.postgres.ingest_lock import IngestLock
from adapters.postgres.limits import SessionLimits
from adapters.system.clock import SystemClock
from ports.errors import StoreError
from ports.jobs import NewJob
from testkit.postgres import PostgresServer
from testkit.tcp_proxy import TcpProxy

NOW = 1_700_000_000.0
LIMITS = SessionLimits(statement_seconds=7.0, idle_in_transaction_seconds=11.0, keepalive_seconds=13.0)
SHORT = SessionLimits(statement_seconds=1.0, grace_seconds=0.5, close_seconds=1.0)
PATIENCE = 30.0
"""How long the test waits for what must happen far sooner: a hang fails the test, not the run."""


async def test_every_session_carries_the_servers_limits(pg_dsn: str) -> None:
    pool = await open_pool(pg_dsn, 1, LIMITS)
    try:
        shown = {
            name: await pool.fetchval(f"SHOW {name}")
            for name in ("statement_timeout", "idle_in_transaction_session_timeout", "tcp_keepalives_idle")
        }
    finally:
        await pool.close()

    assert shown == {
        "statement_timeout": "7s",
        "idle_in_transaction_session_timeout": "11s",
        "tcp_keepalives_idle": "13",
    }


async def test_our_end_of_a_connection_probes_an_idle_server(pg_dsn: str) -> None:
    connection = await connect(pg_dsn, LIMITS)
    try:
        port = await connection.fetchval("SELECT inet_client_port()")
        ss = await asyncio.create_subprocess_exec(
            "ss", "-tnoH", "state", "established", f"( sport = :{port} )", stdout=subprocess.PIPE
        )
        sockets = (await asyncio.wait_for(ss.communicate(), PATIENCE))[0].decode()
    finally:
        await connection.close()

    assert "timer:(keepalive," in sockets


async def test_a_statement_past_its_timeout_fails_and_the_store_goes_on(pg_migrated_dsn: str) -> None:
    store = await PostgresStore.open(pg_migrated_dsn, node="n", limits=SHORT, clock=SystemClock())
    other = await asyncpg.connect(pg_migrated_dsn)
    try:
        locking = other.transaction()
        await locking.start()
        await other.execute("LOCK TABLE jobs IN ACCESS EXCLUSIVE MODE")  # a long migration, a dump

        with pytest.raises(StoreError, match="statement timeout"):
            await asyncio.wait_for(store.enqueue(NewJob("noop", {}, 3), NOW), PATIENCE)

        await locking.rollback()
        assert await store.enqueue(NewJob("noop", {}, 3), NOW) is not None
    finally:
        await other.close()
        await store.close()


async def test_the_server_ends_a_session_left_idle_in_a_transaction(pg_dsn: str) -> None:
    connection = await connect(pg_dsn, replace(SHORT, idle_in_transaction_seconds=0.5))
    ended = asyncio.Event()
    connection.add_termination_listener(lambda _: ended.set())
    await connection.execute("BEGIN")  # and then nothing: a client cut off mid-transaction

    await asyncio.wait_for(ended.wait(), PATIENCE)

    assert connection.is_closed()


async def test_shutting_down_over_a_silent_network_ends_within_its_bound(
    pg_migrated_dsn: str, postgres_server: PostgresServer
) -> None:
    async with TcpProxy(postgres_server.host, postgres_server.port) as proxy:
        dsn = proxy.dsn_through(pg_migrated_dsn, postgres_server.port)
        store = await PostgresStore.open(dsn, node="n", limits=SHORT, clock=SystemClock())
        lock = await IngestLock.take(dsn, SHORT, clock=SystemClock())
        store.on_work(lambda: None)  # its listening connection too
        await store.enqueue(NewJob("noop", {}, 3), NOW)
        proxy.silence()
        claim = asyncio.ensure_future(store.claim("w", NOW, 30.0))  # a round trip in flight

        await asyncio.wait_for(asyncio.gather(store.close(), lock.release()), PATIENCE)

        with pytest.raises(StoreError):
            await asyncio.wait_for(claim, PATIENCE)
