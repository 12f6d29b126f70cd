"""Opening the configured store, for the container and for the CLI's store tools.

The tools (`vidrelay jobs`, `backup`, `check`) open the store through `open_store` here rather than
through the container: an operator's command should not pay for importing the bot's Telegram
stack before it can count rows.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

from adapters.memory.store import MemoryStore
from adapters.sqlite.store import SqliteStore
from adapters.system.clock import SystemClock
from entrypoints.node import node_name
from entrypoints.settings import Settings
from ports.clock import Clock
from ports.store import Store


async def memory_store() -> AsyncIterator[Store]:
    store = MemoryStore()
    yield store
    await store.close()


async def sqlite_store(path: Path, synchronous: str, clock: Clock) -> AsyncIterator[Store]:
    path.parent.mkdir(parents=True, exist_ok=True)
    store = await SqliteStore.open(path, synchronous=synchronous, clock=clock)
    try:
        yield store
    finally:
        await store.close()


async def postgres_store(dsn: str, data_dir: Path, pool_size: int, clock: Clock) -> AsyncIterator[Store]:
    # asyncpg comes with the `postgres` extra: only a deployment that chose it needs it.
    from adapters.postgres import PostgresStore  # noqa: PLC0415

    store = await PostgresStore.open(dsn, node=node_name(data_dir), pool_size=pool_size, clock=clock)
    try:
        yield store
    finally:
        await store.close()


@asynccontextmanager
async def open_store(settings: Settings) -> AsyncIterator[Store]:
    """The configured store, open for as long as the block runs (StoreError if it cannot open)."""
    opened: AbstractAsyncContextManager[Store]
    match settings.store:
        case "memory":
            opened = asynccontextmanager(memory_store)()
        case "sqlite":
            opened = asynccontextmanager(sqlite_store)(
                settings.sqlite_path, settings.sqlite_synchronous, SystemClock()
            )
        case "postgres":
            opened = asynccontextmanager(postgres_store)(
                settings.database_dsn, settings.data_dir, settings.database_pool_size, SystemClock()
            )
    async with opened as store:
        yield store
