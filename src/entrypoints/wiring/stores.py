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
from typing import TYPE_CHECKING

from dependency_injector import containers, providers

from adapters.memory.store import MemoryStore
from adapters.sqlite.store import SqliteStore
from adapters.system.clock import SystemClock
from entrypoints.node import node_name
from entrypoints.settings import Settings
from ports.clock import Clock
from ports.store import Store

if TYPE_CHECKING:
    from adapters.postgres.limits import SessionLimits


async def _memory_store(fair: bool) -> AsyncIterator[Store]:
    store = MemoryStore(fair=fair)
    yield store
    await store.close()


async def _sqlite_store(path: Path, synchronous: str, clock: Clock, fair: bool) -> AsyncIterator[Store]:
    path.parent.mkdir(parents=True, exist_ok=True)
    # The clock times the watch for other processes' commits (`vidrelay jobs retry`).
    store = await SqliteStore.open(path, synchronous=synchronous, clock=clock, fair=fair)
    try:
        yield store
    finally:
        await store.close()


async def _postgres_store(settings: Settings, clock: Clock) -> AsyncIterator[Store]:
    # asyncpg comes with the `postgres` extra: only a deployment that chose it needs it.
    from adapters.postgres import PostgresStore  # noqa: PLC0415

    store = await PostgresStore.open(
        settings.database_dsn,
        node=node_name(settings.data_dir),
        pool_size=settings.database_pool_size,
        clock=clock,
        limits=postgres_limits(settings),
        fair=settings.fair_queue,
    )
    try:
        yield store
    finally:
        await store.close()


def postgres_limits(settings: Settings) -> SessionLimits:
    """How long the PostgreSQL store may wait for anything (adapters/postgres/limits.py)."""
    from adapters.postgres.limits import SessionLimits  # noqa: PLC0415 - see _postgres_store

    return SessionLimits(
        statement_seconds=settings.database_statement_timeout_seconds,
        idle_in_transaction_seconds=settings.database_idle_in_transaction_timeout_seconds,
        keepalive_seconds=settings.database_keepalive_seconds,
        connect_seconds=settings.database_connect_timeout_seconds,
    )


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
            clock=clock,
            fair=settings.provided.fair_queue,
        ),
        postgres=providers.Resource(_postgres_store, settings=settings, clock=clock),
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
