"""Opening the configured store, for the container and for the CLI's store tools.

The tools (`vidrelay jobs`, `backup`, `check`) open the store through `open_store` here rather than
through the container: an operator's command should not pay for importing the bot's Telegram
stack before it can count rows.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from adapters.memory.store import MemoryStore
from adapters.sqlite.store import SqliteStore
from adapters.system.clock import SystemClock
from entrypoints.node import node_name
from entrypoints.settings import Settings
from ports.clock import Clock
from ports.store import Store

if TYPE_CHECKING:
    from adapters.postgres.limits import SessionLimits


async def memory_store() -> AsyncIterator[Store]:
    store = MemoryStore()
    yield store
    await store.close()


async def sqlite_store(path: Path, synchronous: str) -> AsyncIterator[Store]:
    path.parent.mkdir(parents=True, exist_ok=True)
    store = await SqliteStore.open(path, synchronous=synchronous)
    try:
        yield store
    finally:
        await store.close()


async def postgres_store(settings: Settings, clock: Clock) -> AsyncIterator[Store]:
    # asyncpg comes with the `postgres` extra: only a deployment that chose it needs it.
    from adapters.postgres import PostgresStore  # noqa: PLC0415

    store = await PostgresStore.open(
        settings.database_dsn,
        node=node_name(settings.data_dir),
        pool_size=settings.database_pool_size,
        clock=clock,
        limits=postgres_limits(settings),
    )
    try:
        yield store
    finally:
        await store.close()


def postgres_limits(settings: Settings) -> SessionLimits:
    """How long the PostgreSQL store may wait for anything (adapters/postgres/limits.py)."""
    from adapters.postgres.limits import SessionLimits  # noqa: PLC0415 - see postgres_store

    return SessionLimits(
        statement_seconds=settings.database_statement_timeout_seconds,
        idle_in_transaction_seconds=settings.database_idle_in_transaction_timeout_seconds,
        keepalive_seconds=settings.database_keepalive_seconds,
        connect_seconds=settings.database_connect_timeout_seconds,
    )


@asynccontextmanager
async def open_store(settings: Settings) -> AsyncIterator[Store]:
    """The configured store, open for as long as the block runs (StoreError if it cannot open)."""
    opened: AbstractAsyncContextManager[Store]
    match settings.store:
        case "memory":
            opened = asynccontextmanager(memory_store)()
        case "sqlite":
            opened = asynccontextmanager(sqlite_store)(settings.sqlite_path, settings.sqlite_synchronous)
        case "postgres":
            opened = asynccontextmanager(postgres_store)(settings, SystemClock())
    async with opened as store:
        yield store
