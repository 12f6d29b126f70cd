"""The SQLite store's file: WAL with the chosen durability, an unopenable path refused, data and
the install's secret kept across reopening (the secret readable by its owner alone), a closed
store refusing work, two connections on one file waiting for each other."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path

import pytest

from adapters.sqlite import DEFAULT_SYNCHRONOUS, SqliteStore
from ports.errors import StoreError
from tests.support.sqlite_files import (
    NOW,
    RecordingConnection,
    file_modes,
    job,
    other_connection,
)


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
