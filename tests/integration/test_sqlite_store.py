"""What only the SQLite store has: its file settings, the single writer with group commit and
savepoints, driver errors as StoreError, the claim's query plan, two connections on one file.

Faults are caused from outside the store, the way they happen: a second real connection to the
file changes its schema or its rows, or holds its write lock.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import closing
from pathlib import Path
from typing import Any, ClassVar

import pytest

from adapters.sqlite import DEFAULT_SYNCHRONOUS, SqliteStore
from ports.errors import StoreError
from ports.jobs import HandledUrlGuard, NewJob

NOW = 1_700_000_000.0


def job(name: str = "download_video", **payload: object) -> NewJob:
    return NewJob(name, dict(payload), 3)  # type: ignore[arg-type]


def other_connection(path: Path, sql: str, parameters: tuple[object, ...] | list[object] = ()) -> list[Any]:
    """One statement on a connection of its own (another process, as far as the store can tell)."""
    with closing(sqlite3.connect(path, timeout=10, isolation_level=None)) as other:
        return other.execute(sql, parameters).fetchall()


class RecordingConnection(sqlite3.Connection):
    """Remembers the statements the store ran: per-connection PRAGMAs are visible nowhere else."""

    statements: ClassVar[list[str]] = []

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        RecordingConnection.statements.append(sql)
        return super().execute(sql, *args)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "vidrelay.db"


@pytest.fixture
async def store(path: Path) -> AsyncIterator[SqliteStore]:
    opened = await SqliteStore.open(path)
    try:
        yield opened
    finally:
        await opened.close()


async def names(store: SqliteStore) -> list[str]:
    return [j.name for j in await store.list_jobs()]


@pytest.mark.parametrize("level", ["NORMAL", "FULL"])
async def test_the_file_is_wal_with_the_chosen_durability(path: Path, level: str) -> None:
    RecordingConnection.statements = []
    store = await SqliteStore.open(
        path, synchronous=level.lower(), busy_timeout_seconds=2.5, connection_class=RecordingConnection
    )
    try:
        assert other_connection(path, "PRAGMA journal_mode") == [("wal",)]
        ran = RecordingConnection.statements
        assert {
            f"PRAGMA synchronous = {level}",
            "PRAGMA busy_timeout = 2500",
            "PRAGMA foreign_keys = ON",
        } <= set(ran)
    finally:
        await store.close()


async def test_the_default_durability_is_full(path: Path) -> None:
    RecordingConnection.statements = []
    store = await SqliteStore.open(path, connection_class=RecordingConnection)
    await store.close()

    assert DEFAULT_SYNCHRONOUS == "FULL"
    assert "PRAGMA synchronous = FULL" in RecordingConnection.statements


async def test_an_unknown_durability_level_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="synchronous"):
        await SqliteStore.open(tmp_path / "vidrelay.db", synchronous="sometimes")


@pytest.mark.parametrize("where", ["missing-folder/vidrelay.db", "."])
async def test_an_unopenable_path_is_a_store_error_and_leaves_no_thread(tmp_path: Path, where: str) -> None:
    with pytest.raises(StoreError, match="cannot"):
        await SqliteStore.open(tmp_path / where)

    assert not [t for t in threading.enumerate() if t.name.startswith("vidrelay-sqlite")]


def plan_of(path: Path, sql: str, parameters: tuple[object, ...] | list[object]) -> str:
    return " | ".join(row[3] for row in other_connection(path, f"EXPLAIN QUERY PLAN {sql}", parameters))


async def test_the_claim_walks_the_fair_order_index_without_sorting(store: SqliteStore, path: Path) -> None:
    from adapters.sqlite.jobs import _FIRST_FREE, _FIRST_FREE_UNPAUSED

    for sql, params in ((_FIRST_FREE, (0,)), (_FIRST_FREE_UNPAUSED, (0, "[]"))):
        plan = plan_of(path, sql, params)
        assert "SCAN jobs USING INDEX jobs_fair" in plan
        assert "TEMP B-TREE" not in plan


async def test_a_new_rows_turn_is_index_lookups_only(store: SqliteStore, path: Path) -> None:
    from adapters.sqlite.jobs import _INSERT_JOB

    plan = plan_of(path, _INSERT_JOB, ("n", "{}", 3, 0.0, "", None, 0.0, 7, False, 7))

    assert "jobs_requester" in plan
    assert "jobs_claimed_by" in plan
    assert "jobs_fair" in plan
    assert "SCAN jobs" not in plan.replace("SCAN jobs USING", "")


async def test_the_place_in_the_queue_reads_only_the_rows_before_it(store: SqliteStore, path: Path) -> None:
    from adapters.sqlite.queue_view import _AHEAD_OF

    plan = plan_of(path, _AHEAD_OF, (1, 0.0))

    assert "USING INTEGER PRIMARY KEY" in plan
    assert "jobs_fair (turn<?)" in plan
    assert "TEMP B-TREE" not in plan


@pytest.mark.parametrize(
    ("module", "query", "index"),
    [
        ("jobs", "_NEXT_FREE", "jobs_available_at"),
        ("jobs", "_NEXT_FREE_UNPAUSED", "jobs_available_at"),
        ("jobs", "_NEXT_LEASE_END", "jobs_lease_until"),
        ("jobs", "_HELD_BY_ME", "jobs_claimed_by"),
        ("jobs", "_A_LEASE_ENDED", "jobs_lease_until"),
        ("jobs", "_RENEW", "jobs_claimed_by"),
        ("jobs", "_SAME_NAME_EXISTS", "jobs_name"),
        ("quota", "_COUNT_FOR_OWNER", "jobs_owner"),
        ("blobs", "_PINNED_BY_PENDING", "pending_blob_key"),
        ("pending", "_EXPIRE", "pending_created_at"),
        ("caches", "_SWEEP_INFO", "video_info_created_at"),
        ("caches", "_SWEEP_HANDLED", "handled_urls_created_at"),
    ],
)
async def test_lookups_use_their_index(
    store: SqliteStore, path: Path, module: str, query: str, index: str
) -> None:
    import importlib

    sql = getattr(importlib.import_module(f"adapters.sqlite.{module}"), query)
    plan = plan_of(path, sql, [0] * sql.count("?"))

    assert f"INDEX {index} " in f"{plan} "


async def test_taking_back_dead_holders_reads_only_the_held_rows(store: SqliteStore, path: Path) -> None:
    """It runs before every claim: it must cost a look at the held rows, not a scan of the queue."""
    from adapters.sqlite.jobs import _TAKE_BACK

    plan = plan_of(path, _TAKE_BACK, {"me": "w", "dead_before": 0})  # type: ignore[arg-type]

    assert "INDEX jobs_claimed_by" in plan
    assert "SCAN jobs" not in plan.replace("SCAN jobs USING INDEX jobs_claimed_by", "")


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


async def test_data_survives_closing_and_reopening(tmp_path: Path) -> None:
    path = tmp_path / "vidrelay.db"
    first = await SqliteStore.open(path)
    job_id = await first.enqueue(job(n=1), NOW)
    await first.close()

    second = await SqliteStore.open(path)
    try:
        assert [(j.id, j.payload) for j in await second.list_jobs()] == [(job_id, {"n": 1})]
    finally:
        await second.close()


def file_modes(folder: Path, pattern: str) -> dict[str, int]:
    return {p.name: p.stat().st_mode & 0o777 for p in folder.glob(pattern)}


async def test_the_file_holding_the_secret_is_its_owners_alone_and_the_secret_survives(
    tmp_path: Path,
) -> None:
    fresh, older = tmp_path / "fresh.db", tmp_path / "older.db"
    older.touch(mode=0o644)
    older.chmod(0o644)  # as an earlier vidrelay, under a common umask, left it
    first = await SqliteStore.open(fresh)
    secret = await first.install_secret("callback", b"k" * 32)
    await first.enqueue(job(n=1), NOW)  # the write-ahead log exists now
    modes = file_modes(tmp_path, "fresh.db*")
    await first.close()
    await (await SqliteStore.open(older)).close()

    second = await SqliteStore.open(fresh)
    try:
        assert await second.install_secret("callback", b"other" * 8) == secret == b"k" * 32
    finally:
        await second.close()
    assert modes["fresh.db"] == modes["fresh.db-wal"] == 0o600
    assert older.stat().st_mode & 0o777 == 0o600


async def test_a_closed_store_refuses_work(tmp_path: Path) -> None:
    store = await SqliteStore.open(tmp_path / "vidrelay.db")
    await store.close()
    await store.close()  # idempotent

    with pytest.raises(StoreError, match="closed"):
        await store.enqueue(job(), NOW)


async def test_close_finishes_what_was_already_submitted(tmp_path: Path) -> None:
    path = tmp_path / "vidrelay.db"
    store = await SqliteStore.open(path)
    pending = [asyncio.create_task(store.enqueue(job(n=n), NOW)) for n in range(20)]
    await asyncio.sleep(0)

    await store.close()

    assert sorted([await task for task in pending]) == list(range(1, 21))  # type: ignore[type-var]
    reopened = await SqliteStore.open(path)
    try:
        assert len(await reopened.list_jobs()) == 20
    finally:
        await reopened.close()


async def test_two_connections_on_one_file_wait_for_each_other(tmp_path: Path) -> None:
    """The bot and the CLI may write the same file at once: busy_timeout makes them take turns."""
    path = tmp_path / "vidrelay.db"
    bot, cli = await SqliteStore.open(path), await SqliteStore.open(path)
    try:
        ids = await asyncio.gather(
            *(bot.enqueue(job("bot"), NOW) for _ in range(100)),
            *(cli.enqueue(job("cli"), NOW) for _ in range(100)),
        )
        claims = await asyncio.gather(
            *(s.claim(f"worker-{n}", NOW, 60) for n, s in enumerate([bot, cli] * 50))
        )
    finally:
        await cli.close()
    try:
        assert len(set(ids)) == 200
        claimed_ids = [c.id for c in claims if c is not None]
        assert len(claimed_ids) == len(set(claimed_ids)) == 100
        assert (await bot.counts()).running == 100
    finally:
        await bot.close()


async def test_a_process_that_never_closes_the_store_still_exits(tmp_path: Path) -> None:
    """asyncio.run cancels the writer at exit; it lets the connection's (non-daemon) thread end too."""
    path = tmp_path / "vidrelay.db"
    script = (
        "import asyncio, pathlib\n"
        "from adapters.sqlite import SqliteStore\n"
        "from ports.jobs import NewJob\n"
        "async def main():\n"
        f"    store = await SqliteStore.open(pathlib.Path({str(path)!r}))\n"
        "    await store.enqueue(NewJob('download_video', {}, 3), 0.0)\n"
        "asyncio.run(main())\n"
    )
    process = await asyncio.create_subprocess_exec(sys.executable, "-c", script)
    try:
        assert await asyncio.wait_for(process.wait(), timeout=30) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    store = await SqliteStore.open(path)
    try:
        assert [j.name for j in await store.list_jobs()] == ["download_video"]
    finally:
        await store.close()


class RollbackFailsOnce(sqlite3.Connection):
    """A ROLLBACK TO that fails, as it can after an I/O error: a failure real SQLite will not
    produce on demand."""

    opened = 0
    armed = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        RollbackFailsOnce.opened += 1

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        if sql == "ROLLBACK TO op" and RollbackFailsOnce.armed:
            RollbackFailsOnce.armed = False
            raise sqlite3.OperationalError("disk I/O error")
        return super().execute(sql, *args)


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
