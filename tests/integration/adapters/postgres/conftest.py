"""Shared fixtures of the PostgreSQL store's own tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from adapters.postgres import PostgresStore
from adapters.system.clock import SystemClock


@pytest.fixture
async def two_stores(pg_dsn: str) -> AsyncIterator[tuple[PostgresStore, PostgresStore]]:
    """Two processes' worth of store (own pools, own nodes, own listening connections) on one
    database."""
    first = await PostgresStore.open(pg_dsn, node="node-a", clock=SystemClock())
    second = await PostgresStore.open(pg_dsn, node="node-b", clock=SystemClock())
    yield first, second
    await first.close()
    await second.close()
