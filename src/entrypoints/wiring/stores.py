"""The first layer of the composition root: the wall clock and the store the settings choose.

It is the one store-selection path: the container is built on it (`Container` extends `Stores`),
and the operator's store tools (`vidrelay jobs`, `check`) open the store through `open_store`
here, so a command that only counts rows pays for neither aiogram nor yt-dlp.

Stores open asynchronously and only the chosen one is ever opened: callers resolve the Selector
(`await container.store.async_()`), never `init_resources()`, which would open every branch.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from dependency_injector import containers, providers

from adapters.memory.store import MemoryStore
from adapters.sqlite.store import SqliteStore
from adapters.system.clock import SystemClock
from entrypoints.node import node_name
from entrypoints.settings import Settings
from ports.clock import Clock
from ports.store import Store


async def _memory_store(fair: bool) -> AsyncIterator[Store]:
    store = MemoryStore(fair=fair)
    yield store
    await store.close()


async def _sqlite_store(path: Path, synchronous: str, fair: bool) -> AsyncIterator[Store]:
    path.parent.mkdir(parents=True, exist_ok=True)
    store = await SqliteStore.open(path, synchronous=synchronous, fair=fair)
    try:
        yield store
    finally:
        await store.close()


async def _postgres_store(
    dsn: str, data_dir: Path, pool_size: int, clock: Clock, fair: bool
) -> AsyncIterator[Store]:
    # asyncpg comes with the `postgres` extra: only a deployment that chose it needs it.
    from adapters.postgres import PostgresStore  # noqa: PLC0415

    store = await PostgresStore.open(
        dsn, node=node_name(data_dir), pool_size=pool_size, clock=clock, fair=fair
    )
    try:
        yield store
    finally:
        await store.close()


class Stores(containers.DeclarativeContainer):
    settings = providers.Dependency(instance_of=Settings)
    clock = providers.Singleton(SystemClock)
    store = providers.Selector(
        settings.provided.store,
        memory=providers.Resource(_memory_store, fair=settings.provided.fair_queue),
        sqlite=providers.Resource(
            _sqlite_store,
            path=settings.provided.sqlite_path,
            synchronous=settings.provided.sqlite_synchronous,
            fair=settings.provided.fair_queue,
        ),
        postgres=providers.Resource(
            _postgres_store,
            dsn=settings.provided.database_dsn,
            data_dir=settings.provided.data_dir,
            pool_size=settings.provided.database_pool_size,
            clock=clock,
            fair=settings.provided.fair_queue,
        ),
    )


@dataclass(frozen=True, slots=True)
class OpenStore:
    store: Store
    clock: Clock
    """The wall clock the store was opened with: what "now" is to an operator's tool."""


@asynccontextmanager
async def open_store(settings: Settings) -> AsyncIterator[OpenStore]:
    """The configured store, open for as long as the block runs (StoreError if it cannot open)."""
    stores = Stores(settings=settings)
    store: Store = await stores.store.async_()
    try:
        yield OpenStore(store, stores.clock())
    finally:
        await shutdown(stores)


async def shutdown(container: containers.Container) -> None:
    """Close what was opened, and only that: resources never resolved were never started."""
    closing = container.shutdown_resources()
    if closing is not None:
        await closing
