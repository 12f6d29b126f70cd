"""The one writer's group commit: operations that arrive together share a transaction, each in
its savepoint, so a failing one fails alone with its own error, and the writer goes on after
whatever SQLite does (a lock past the busy timeout, an aborted transaction, a failed rollback)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from adapters.sqlite import SqliteStore
from ports.errors import StoreError
from ports.jobs import HandledUrlGuard
from tests.support.sqlite_files import (
    NOW,
    RollbackFailsOnce,
    job,
    names,
    other_connection,
)


async def test_operations_that_arrive_together_share_one_transaction(store: SqliteStore) -> None:
    before = store.transactions

    ids = await asyncio.gather(*(store.enqueue(job(n=n), NOW) for n in range(50)))

    assert sorted(ids) == ids == list(range(1, 51))  # type: ignore[comparison-overlap]
    assert store.transactions == before + 1


async def test_a_failing_operation_rolls_back_alone_and_gets_its_own_error(
    store: SqliteStore, path: Path
) -> None:
    other_connection(
        path,
        "CREATE TRIGGER refuse_poison BEFORE INSERT ON jobs WHEN NEW.name = 'poison'"
        " BEGIN SELECT RAISE(FAIL, 'poison refused'); END",
    )
    guard = HandledUrlGuard(1, 1, "https://example.com/poison")
    before = store.transactions

    results = await asyncio.gather(
        store.enqueue(job("first"), NOW),
        store.enqueue(job("poison"), NOW, guard),
        store.enqueue(job("last"), NOW),
        return_exceptions=True,
    )

    assert store.transactions == before + 1
    assert isinstance(results[0], int)
    assert isinstance(results[2], int)
    assert isinstance(results[1], StoreError)
    assert "poison refused" in str(results[1])
    assert isinstance(results[1].__cause__, sqlite3.Error)
    assert await names(store) == ["first", "last"]
    assert await store.sweep_handled(NOW + 1) == 0  # the poison's guard mark rolled back with it


async def test_when_sqlite_aborts_the_whole_transaction_only_the_culprit_fails(
    store: SqliteStore, path: Path
) -> None:
    """Like SQLITE_FULL or an I/O error, RAISE(ROLLBACK) takes the whole transaction, not just the
    statement: the others run again."""
    other_connection(
        path,
        "CREATE TRIGGER disk_full BEFORE INSERT ON jobs WHEN NEW.name = 'huge'"
        " BEGIN SELECT RAISE(ROLLBACK, 'database or disk is full'); END",
    )
    before = store.transactions

    results = await asyncio.gather(
        store.enqueue(job("first"), NOW),
        store.enqueue(job("huge", blob="x" * 200_000), NOW),
        store.enqueue(job("last"), NOW),
        return_exceptions=True,
    )

    assert store.transactions == before + 1
    assert isinstance(results[1], StoreError)
    assert "full" in str(results[1])
    assert [isinstance(r, int) for r in (results[0], results[2])] == [True, True]
    assert await names(store) == ["first", "last"]


async def test_a_file_locked_past_busy_timeout_fails_the_batch_at_once(tmp_path: Path) -> None:
    path = tmp_path / "vidrelay.db"
    store = await SqliteStore.open(path, busy_timeout_seconds=0.05)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        results = await asyncio.gather(
            *(store.enqueue(job(n=n), NOW) for n in range(5)), return_exceptions=True
        )
        assert all(isinstance(r, StoreError) and "locked" in str(r) for r in results)

        other.execute("ROLLBACK")
        assert await store.enqueue(job(), NOW) == 1
    finally:
        other.close()
        await store.close()


async def test_a_bug_in_an_operation_keeps_its_own_exception_type(store: SqliteStore) -> None:
    with pytest.raises(TypeError):
        await store.enqueue(job(bad=object()), NOW)

    assert await store.enqueue(job("fine"), NOW) == 1


async def test_text_sqlite_cannot_store_is_a_store_error_and_the_writer_goes_on(store: SqliteStore) -> None:
    lone_surrogate = "https://example.com/\ud800"

    with pytest.raises(StoreError):
        await store.enqueue(job(), NOW, HandledUrlGuard(1, 1, lone_surrogate))

    assert await store.enqueue(job(url=lone_surrogate), NOW) == 1  # JSON payloads escape it
    assert (await store.list_jobs())[0].payload == {"url": lone_surrogate}


async def test_an_operation_cancelled_before_its_batch_never_runs(store: SqliteStore) -> None:
    task = asyncio.create_task(store.enqueue(job("cancelled"), NOW))
    await asyncio.sleep(0)  # the operation is queued; the writer has not taken it yet
    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task
    assert await store.enqueue(job("kept"), NOW) is not None
    assert await names(store) == ["kept"]


async def test_a_damaged_payload_reaches_the_job_instead_of_wedging_the_queue(
    store: SqliteStore, path: Path
) -> None:
    await store.enqueue(job(), NOW)
    other_connection(path, "UPDATE jobs SET payload = '{not json'")

    claimed = await store.claim("w", NOW, 60)

    assert claimed is not None
    assert claimed.payload == {"corrupt_payload": "{not json"}


async def test_a_failing_rollback_makes_the_writer_start_over_on_a_new_connection(path: Path) -> None:
    store = await SqliteStore.open(path, connection_class=RollbackFailsOnce)
    other_connection(
        path,
        "CREATE TRIGGER refuse_poison BEFORE INSERT ON jobs WHEN NEW.name = 'poison'"
        " BEGIN SELECT RAISE(FAIL, 'poison refused'); END",
    )
    RollbackFailsOnce.opened, RollbackFailsOnce.armed = 0, True
    try:
        results = await asyncio.gather(
            store.enqueue(job("before"), NOW),
            store.enqueue(job("poison"), NOW),
            store.enqueue(job("after"), NOW),
            return_exceptions=True,
        )

        assert all(isinstance(r, StoreError) for r in results)  # nothing of that transaction stands
        assert await names(store) == []
        assert await store.enqueue(job("next"), NOW) is not None
        assert await names(store) == ["next"]
        assert RollbackFailsOnce.opened == 1  # a fresh connection took over
    finally:
        await store.close()
