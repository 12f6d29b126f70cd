"""Work notices on SQLite: a commit by another process on the file wakes the store's subscribers
(the bot's idle workers), its own commits do not."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.sqlite.store import SqliteStore
from adapters.system.clock import SystemClock
from ports.jobs import NewJob

NOW = 1_700_000_000.0
WAIT = 20.0


async def batches(store: SqliteStore, count: int) -> None:
    target = store.transactions + count
    while store.transactions < target:  # noqa: ASYNC110 - a counter of the store's, no event to wait on
        await asyncio.sleep(0.05)


@pytest.fixture
async def bot_store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    store = await SqliteStore.open(tmp_path / "vidrelay.db", clock=SystemClock())
    yield store
    await store.close()


async def test_a_commit_by_another_connection_wakes_the_subscriber(
    bot_store: SqliteStore, tmp_path: Path
) -> None:
    woken = asyncio.Event()
    bot_store.on_work(woken.set)
    await asyncio.sleep(0)
    cli = await SqliteStore.open(tmp_path / "vidrelay.db")  # `vidrelay jobs retry`, as it opens the file
    try:
        await cli.enqueue(NewJob("download_video", {}, 3), NOW)
    finally:
        await cli.close()
    await asyncio.wait_for(woken.wait(), WAIT)


async def test_its_own_commits_wake_nobody(bot_store: SqliteStore) -> None:
    wakes: list[None] = []
    bot_store.on_work(lambda: wakes.append(None))
    for n in range(3):
        await bot_store.enqueue(NewJob("download_video", {"n": n}, 3), NOW)
    landmark = await bot_store.enqueue(NewJob("download_video", {"n": 3}, 3), NOW)
    # Two polls of the file after the last commit (each read is a batch of the writer): a wake
    # would have come by now.
    await asyncio.wait_for(batches(bot_store, 2), WAIT)
    assert landmark
    assert wakes == []


async def test_a_store_opened_without_a_clock_refuses_to_watch(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "vidrelay.db")
    try:
        with pytest.raises(RuntimeError, match="without a clock"):
            store.on_work(lambda: None)
    finally:
        await store.close()
