"""One contract suite, run against every store adapter.

Each store is one fixture named `<name>_kit` that opens it for a test (and closes it); add its
name to STORES and every test in this folder runs against it too. Abilities a store cannot offer
(fault injection needs a database; nothing in memory can be corrupted) are None in its kit, and
the tests that need them skip with the reason. Faults are caused from outside, the way they
happen: a second real connection to the same database changes its schema or its rows.

The SQL stores judge leases by their own clock (ports/queue.py): their kits pin it, and the
`store` fixture keeps it at every `now` a test passes (clocks in agreement). A test of a skewed
caller takes `kit.store` and sets `kit.clock` itself.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import pytest

from adapters.memory.store import MemoryStore
from adapters.postgres import PostgresStore
from adapters.sqlite import SqliteStore
from adapters.system.clock import SystemClock
from ports.store import Store
from tests.support.store_clock import PostgresClock, SqliteClock, Synced

NOW = 1_700_000_000.0
STORES = ["memory", "sqlite", "postgres"]

FailInserts = Callable[[str], Awaitable[None]]
"""Make every later INSERT into the named table fail inside the store's own transaction."""
CorruptInfo = Callable[[str, str], Awaitable[None]]
"""Overwrite the stored info entries of a URL with the given raw text."""


@dataclass
class StoreKit:
    name: str
    store: Store
    fail_inserts_into: FailInserts | None = None
    corrupt_info: CorruptInfo | None = None
    clock: SqliteClock | PostgresClock | None = None
    """The store's own clock (None: the memory store has only its callers')."""


@pytest.fixture
async def memory_kit() -> AsyncIterator[StoreKit]:
    store = MemoryStore()
    yield StoreKit("memory", store)
    await store.close()


@pytest.fixture
async def sqlite_kit(tmp_path: Path) -> AsyncIterator[StoreKit]:
    path = tmp_path / "vidrelay.db"
    clock = SqliteClock(NOW)
    store = await SqliteStore.open(path, connection_class=clock.connection_class)

    async def from_another_connection(sql: str, parameters: tuple[object, ...] = ()) -> None:
        def run() -> None:
            with closing(sqlite3.connect(path, timeout=10, isolation_level=None)) as other:
                other.execute(sql, parameters)

        await asyncio.to_thread(run)

    async def fail_inserts_into(table: str) -> None:
        # A trigger in the file: the store's own connection sees it at its next statement, so the
        # failure happens inside the store's transaction, after any guard row was written in it.
        await from_another_connection(
            f"CREATE TRIGGER fail_insert_{table} BEFORE INSERT ON {table}"
            " BEGIN SELECT RAISE(FAIL, 'injected insert failure'); END"
        )

    async def corrupt_info(url: str, raw: str) -> None:
        await from_another_connection("UPDATE video_info SET entries = ? WHERE url = ?", (raw, url))

    yield StoreKit("sqlite", store, fail_inserts_into, corrupt_info, clock)
    await store.close()


@pytest.fixture
async def postgres_kit(pg_migrated_dsn: str) -> AsyncIterator[StoreKit]:
    pg_dsn = pg_migrated_dsn
    clock = PostgresClock(pg_dsn)
    await clock.set(NOW)
    store = await PostgresStore.open(pg_dsn, node="contract-node", clock=SystemClock())

    async def from_another_connection(sql: str, *parameters: object) -> None:
        other = await asyncpg.connect(pg_dsn)
        try:
            await other.execute(sql, *parameters)
        finally:
            await other.close()

    async def fail_inserts_into(table: str) -> None:
        # A trigger in the database: the failure happens inside the store's own statement, after
        # any guard row was written in it.
        await from_another_connection(
            "CREATE FUNCTION injected_failure() RETURNS trigger LANGUAGE plpgsql AS"
            " $$ BEGIN RAISE EXCEPTION 'injected insert failure'; END $$"
        )
        await from_another_connection(
            f"CREATE TRIGGER fail_insert_{table} BEFORE INSERT ON {table}"
            " FOR EACH ROW EXECUTE FUNCTION injected_failure()"
        )

    async def corrupt_info(url: str, raw: str) -> None:
        await from_another_connection("UPDATE video_info SET entries = $1 WHERE url = $2", raw, url)

    yield StoreKit("postgres", store, fail_inserts_into, corrupt_info, clock)
    await store.close()


@pytest.fixture(params=STORES)
def kit(request: pytest.FixtureRequest) -> StoreKit:
    made: StoreKit = request.getfixturevalue(f"{request.param}_kit")
    return made


@pytest.fixture
def store(kit: StoreKit) -> Store:
    if kit.clock is None:
        return kit.store
    synced: Store = Synced(kit.store, kit.clock.set)  # type: ignore[assignment]
    return synced


@pytest.fixture
async def memory_fifo() -> AsyncIterator[Store]:
    store = MemoryStore(fair=False)
    yield store
    await store.close()


@pytest.fixture
async def sqlite_fifo(tmp_path: Path) -> AsyncIterator[Store]:
    store = await SqliteStore.open(tmp_path / "fifo.db", fair=False)
    yield store
    await store.close()


@pytest.fixture
async def postgres_fifo(pg_migrated_dsn: str) -> AsyncIterator[Store]:
    store = await PostgresStore.open(pg_migrated_dsn, node="contract-fifo", clock=SystemClock(), fair=False)
    yield store
    await store.close()


@pytest.fixture(params=STORES)
def fifo_store(request: pytest.FixtureRequest) -> Store:
    """Each store opened with the fair order off (first-in, first-out: a comparison)."""
    store: Store = request.getfixturevalue(f"{request.param}_fifo")
    return store
