"""One contract suite, run against every store adapter.

To add an adapter (Postgres), add its name to STORES and an opener to OPENERS: every test in
this folder then runs against it. Abilities a store cannot offer (fault injection needs a
database; nothing in memory can be corrupted) are None in its kit, and the tests that need them
skip with the reason.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from adapters.memory.store import MemoryStore
from adapters.sqlite import SqliteStore
from ports.store import Store

NOW = 1_700_000_000.0

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


async def _memory(_: Path) -> StoreKit:
    return StoreKit("memory", MemoryStore())


async def _sqlite(folder: Path) -> StoreKit:
    store = await SqliteStore.open(folder / "vidrelay.db")

    async def fail_inserts_into(table: str) -> None:
        # A TEMP trigger lives on the store's own connection only, so the failure happens inside
        # the store's transaction, after any guard row was already written in it.
        await store.execute(
            f"CREATE TEMP TRIGGER fail_insert_{table} BEFORE INSERT ON main.{table}"
            " BEGIN SELECT RAISE(FAIL, 'injected insert failure'); END"
        )

    async def corrupt_info(url: str, raw: str) -> None:
        await store.execute("UPDATE video_info SET entries = ? WHERE url = ?", (raw, url))

    return StoreKit("sqlite", store, fail_inserts_into, corrupt_info)


OPENERS: dict[str, Callable[[Path], Awaitable[StoreKit]]] = {"memory": _memory, "sqlite": _sqlite}
STORES = list(OPENERS)


@pytest.fixture(params=STORES)
async def kit(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[StoreKit]:
    opened = await OPENERS[request.param](tmp_path)
    try:
        yield opened
    finally:
        await opened.store.close()


@pytest.fixture
def store(kit: StoreKit) -> Store:
    return kit.store
