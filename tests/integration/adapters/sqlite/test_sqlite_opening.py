"""Opening a store's file: many processes at once on a brand-new file; files that are not ours."""

from __future__ import annotations

import asyncio
import hashlib
import os
import sqlite3
import sys
from pathlib import Path

import pytest

from adapters.sqlite import SqliteStore
from adapters.sqlite.schema import MIGRATIONS
from ports.errors import StoreRefused
from ports.jobs import NewJob

pytestmark = pytest.mark.slow

OPENERS = 40
# Each process waits for the go file, then opens the store, enqueues one job and closes.
OPENER = """
import asyncio, os, sys, time, pathlib
from adapters.sqlite import SqliteStore
from ports.jobs import NewJob
path, go = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
while not go.exists():
    time.sleep(0.001)
async def main():
    store = await SqliteStore.open(path, busy_timeout_seconds=30)
    await store.enqueue(NewJob("opened", {"pid": os.getpid()}, 3), 0.0)
    await store.close()
asyncio.run(main())
"""


async def test_forty_processes_opening_one_brand_new_file_at_once_all_open(tmp_path: Path) -> None:
    path, go = tmp_path / "vidrelay.db", tmp_path / "go"
    processes = [
        await asyncio.create_subprocess_exec(
            sys.executable, "-c", OPENER, str(path), str(go), stderr=asyncio.subprocess.PIPE
        )
        for _ in range(OPENERS)
    ]
    await asyncio.sleep(0.5)  # let the interpreters start, so that the opens really overlap
    go.touch()
    results = [await asyncio.wait_for(p.communicate(), timeout=120) for p in processes]

    failures = [err.decode() for (_, err), p in zip(results, processes, strict=True) if p.returncode != 0]
    assert failures == []
    store = await SqliteStore.open(path)
    try:
        assert len(await store.list_jobs(limit=100)) == OPENERS
    finally:
        await store.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def written(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


async def test_a_file_of_random_bytes_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = written(tmp_path / "vidrelay.db", os.urandom(64 * 1024))
    before = digest(path)

    with pytest.raises(StoreRefused, match="not an SQLite database") as refused:
        await SqliteStore.open(path)

    assert str(path) in str(refused.value)
    assert digest(path) == before
    assert sorted(os.listdir(tmp_path)) == ["vidrelay.db"]  # no -wal, no -journal left beside it


async def test_another_programs_database_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "vidrelay.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    before = digest(path)

    with pytest.raises(StoreRefused, match="another program"):
        await SqliteStore.open(path)

    assert digest(path) == before


async def test_a_database_from_a_newer_vidrelay_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "vidrelay.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE jobs (id INTEGER PRIMARY KEY)")
        connection.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    before = digest(path)

    with pytest.raises(StoreRefused, match="newer vidrelay"):
        await SqliteStore.open(path)

    assert digest(path) == before


async def test_an_empty_file_is_a_new_database(tmp_path: Path) -> None:
    path = written(tmp_path / "vidrelay.db", b"")

    store = await SqliteStore.open(path)
    try:
        assert await store.enqueue(NewJob("download_video", {}, 3), 0.0) == 1
    finally:
        await store.close()
