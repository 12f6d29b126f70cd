"""What only the SQLite store has: its file settings, the single writer with group commit and
savepoints, driver errors as StoreError, the claim's query plan, two connections on one file."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.sqlite import DEFAULT_SYNCHRONOUS, SqliteStore
from ports.errors import StoreError
from ports.jobs import HandledUrlGuard, NewJob

NOW = 1_700_000_000.0
SYNCHRONOUS = {"OFF": 0, "NORMAL": 1, "FULL": 2, "EXTRA": 3}


def job(name: str = "download_video", **payload: object) -> NewJob:
    return NewJob(name, dict(payload), 3)  # type: ignore[arg-type]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    opened = await SqliteStore.open(tmp_path / "vidrelay.db")
    try:
        yield opened
    finally:
        await opened.close()


async def names(store: SqliteStore) -> list[str]:
    return [j.name for j in await store.list_jobs()]


@pytest.mark.parametrize("level", ["NORMAL", "FULL"])
async def test_the_file_is_wal_with_the_chosen_durability(tmp_path: Path, level: str) -> None:
    store = await SqliteStore.open(
        tmp_path / "vidrelay.db", synchronous=level.lower(), busy_timeout_seconds=2.5
    )
    try:
        assert await store.execute("PRAGMA journal_mode") == [("wal",)]
        assert await store.execute("PRAGMA synchronous") == [(SYNCHRONOUS[level],)]
        assert await store.execute("PRAGMA busy_timeout") == [(2500,)]
        assert await store.execute("PRAGMA foreign_keys") == [(1,)]
    finally:
        await store.close()


async def test_the_default_durability_is_full(store: SqliteStore) -> None:
    assert DEFAULT_SYNCHRONOUS == "FULL"
    assert await store.execute("PRAGMA synchronous") == [(SYNCHRONOUS["FULL"],)]


async def test_an_unknown_durability_level_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="synchronous"):
        await SqliteStore.open(tmp_path / "vidrelay.db", synchronous="sometimes")


@pytest.mark.parametrize("where", ["missing-folder/vidrelay.db", "."])
async def test_an_unopenable_path_is_a_store_error_and_leaves_no_thread(tmp_path: Path, where: str) -> None:
    with pytest.raises(StoreError, match="cannot"):
        await SqliteStore.open(tmp_path / where)

    assert not [t for t in threading.enumerate() if "_connection_worker_thread" in t.name]


async def test_the_claim_walks_the_primary_key_without_sorting(store: SqliteStore) -> None:
    from adapters.sqlite.store import _CLAIM_ANY, _CLAIM_UNPAUSED

    for sql, params in ((_CLAIM_ANY, ("w", 1, 0, 0)), (_CLAIM_UNPAUSED, ("w", 1, 0, 0, "[]"))):
        plan = " | ".join(row[3] for row in await store.execute(f"EXPLAIN QUERY PLAN {sql}", params))
        assert "SCAN jobs" in plan
        assert "TEMP B-TREE" not in plan
        assert "INDEX" not in plan.replace("json_each VIRTUAL TABLE INDEX", "")


@pytest.mark.parametrize(
    ("query", "index"),
    [
        ("_NEXT_DUE", "jobs_available_at"),
        ("_NEXT_DUE_UNPAUSED", "jobs_available_at"),
        ("_NEXT_LEASE_END", "jobs_lease_until"),
        ("_NEXT_LEASE_END_UNPAUSED", "jobs_lease_until"),
        ("_SAME_NAME_EXISTS", "jobs_name"),
        ("_COUNT_FOR_OWNER", "jobs_owner"),
        ("_PINNED_BY_PENDING", "pending_blob_key"),
        ("_EXPIRE", "pending_created_at"),
        ("_SWEEP_INFO", "video_info_created_at"),
        ("_SWEEP_HANDLED", "handled_urls_created_at"),
    ],
)
async def test_lookups_use_their_index(store: SqliteStore, query: str, index: str) -> None:
    from adapters.sqlite import store as queries

    sql = getattr(queries, query)
    rows = await store.execute(f"EXPLAIN QUERY PLAN {sql}", [0] * sql.count("?"))
    plan = " | ".join(row[3] for row in rows)

    assert f"INDEX {index} " in f"{plan} "


async def test_operations_that_arrive_together_share_one_transaction(store: SqliteStore) -> None:
    before = store.transactions

    ids = await asyncio.gather(*(store.enqueue(job(n=n), NOW) for n in range(50)))

    assert sorted(ids) == ids == list(range(1, 51))  # type: ignore[comparison-overlap]
    assert store.transactions == before + 1


async def test_a_failing_operation_rolls_back_alone_and_gets_its_own_error(store: SqliteStore) -> None:
    await store.execute(
        "CREATE TEMP TRIGGER refuse_poison BEFORE INSERT ON main.jobs WHEN NEW.name = 'poison'"
        " BEGIN SELECT RAISE(FAIL, 'poison refused'); END"
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


async def test_when_sqlite_aborts_the_whole_transaction_only_the_culprit_fails(store: SqliteStore) -> None:
    """SQLITE_FULL rolls back the whole transaction, not just the statement: the others run again."""
    [(pages,)] = await store.execute("PRAGMA page_count")
    await store.execute(f"PRAGMA max_page_count = {pages + 2}")
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


async def test_a_damaged_payload_reaches_the_job_instead_of_wedging_the_queue(store: SqliteStore) -> None:
    await store.enqueue(job(), NOW)
    await store.execute("UPDATE jobs SET payload = '{not json'")

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
    """asyncio.run cancels the writer at exit; it stops aiosqlite's (non-daemon) thread too."""
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
