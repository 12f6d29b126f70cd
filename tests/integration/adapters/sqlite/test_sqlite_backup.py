"""Backups of the SQLite store with SQLite's online backup API, and restores that check first."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from adapters.sqlite.backup import BackupError, backup, verify
from adapters.sqlite.restore import restore
from adapters.sqlite.schema import MIGRATIONS
from adapters.sqlite.store import SqliteStore
from ports.blobs import BlobRecord
from ports.jobs import NewJob


def blob(key: str) -> BlobRecord:
    return BlobRecord(key, f"{key}.mp4", 100, 1.0, 64, 64, None, None, 1.0, 1.0)


async def filled_store(path: Path, jobs: int, blobs: int) -> SqliteStore:
    store = await SqliteStore.open(path)
    for n in range(jobs):
        await store.enqueue(NewJob("download_video", {"n": n}, 3), 1.0)
    for n in range(blobs):
        await store.put_blob(blob(f"generic:b{n}:mp4"))
    return store


def names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as db:
        return list(db.execute(sql))


async def test_a_backup_of_an_open_store_is_verified_and_self_contained(tmp_path: Path) -> None:
    store = await filled_store(tmp_path / "vidrelay.db", jobs=5, blobs=3)
    try:
        copied = backup(tmp_path / "vidrelay.db", tmp_path / "copy.db")
        await store.enqueue(NewJob("download_video", {"n": "after"}, 3), 2.0)  # the bot goes on
    finally:
        await store.close()
    assert copied.rows == {"jobs": 5, "failed_jobs": 0, "blobs": 3}
    assert copied.schema_version == len(MIGRATIONS)
    assert rows(tmp_path / "copy.db", "PRAGMA integrity_check") == [("ok",)]
    assert rows(tmp_path / "copy.db", "PRAGMA journal_mode") == [("delete",)]
    assert names(tmp_path) == ["copy.db", "vidrelay.db"]


async def test_a_backup_sees_what_is_committed_in_the_wal_only(tmp_path: Path) -> None:
    store = await filled_store(tmp_path / "vidrelay.db", jobs=2, blobs=0)
    try:
        assert (tmp_path / "vidrelay.db-wal").stat().st_size > 0  # not checkpointed yet
        copied = backup(tmp_path / "vidrelay.db", tmp_path / "copy.db")
    finally:
        await store.close()
    assert copied.rows["jobs"] == 2


async def test_a_failed_backup_leaves_the_previous_copy_in_place(tmp_path: Path) -> None:
    store = await filled_store(tmp_path / "vidrelay.db", jobs=1, blobs=0)
    await store.close()
    backup(tmp_path / "vidrelay.db", tmp_path / "copy.db")
    before = (tmp_path / "copy.db").read_bytes()
    (tmp_path / "vidrelay.db").write_bytes(b"garbage" * 1000)
    with pytest.raises(BackupError, match="file is not a database"):
        backup(tmp_path / "vidrelay.db", tmp_path / "copy.db")
    assert (tmp_path / "copy.db").read_bytes() == before
    assert not [n for n in names(tmp_path) if "partial" in n]


def test_a_missing_store_is_refused_and_nothing_is_created(tmp_path: Path) -> None:
    with pytest.raises(BackupError, match="no SQLite store"):
        backup(tmp_path / "vidrelay.db", tmp_path / "copy.db")
    assert list(tmp_path.iterdir()) == []


def test_verify_refuses_what_is_not_a_sound_vidrelay_store(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    with pytest.raises(BackupError, match="not a vidrelay store"):
        verify(other)
    (tmp_path / "junk.db").write_bytes(b"x" * 4096)
    with pytest.raises(BackupError, match="not a readable SQLite store"):
        verify(tmp_path / "junk.db")


async def test_verify_refuses_a_store_from_a_newer_vidrelay(tmp_path: Path) -> None:
    store = await filled_store(tmp_path / "vidrelay.db", jobs=0, blobs=0)
    await store.close()
    with sqlite3.connect(tmp_path / "vidrelay.db") as db:
        db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(BackupError, match="schema version"):
        verify(tmp_path / "vidrelay.db")


async def test_verify_finds_a_corrupted_page(tmp_path: Path) -> None:
    store = await filled_store(tmp_path / "vidrelay.db", jobs=200, blobs=0)
    await store.close()
    backup(tmp_path / "vidrelay.db", tmp_path / "copy.db")
    data = bytearray((tmp_path / "copy.db").read_bytes())
    page = 4096
    for offset in range(2 * page + 100, len(data) - page, page):  # scribble inside table pages
        data[offset : offset + 64] = b"\xff" * 64
    (tmp_path / "copy.db").write_bytes(bytes(data))
    with pytest.raises(BackupError, match=r"fails integrity_check|not a readable"):
        verify(tmp_path / "copy.db")


async def test_restore_puts_the_backup_in_place_and_keeps_the_old_store_with_its_wal(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    store = await filled_store(data / "vidrelay.db", jobs=3, blobs=1)
    await store.close()
    backup(data / "vidrelay.db", tmp_path / "copy.db")
    store = await SqliteStore.open(data / "vidrelay.db")
    await store.enqueue(NewJob("download_video", {"n": "later"}, 3), 2.0)
    await store.close()
    restored, kept = restore(tmp_path / "copy.db", data / "vidrelay.db", now=0.0)
    assert restored.rows == {"jobs": 3, "failed_jobs": 0, "blobs": 1}
    assert kept == data / "vidrelay.db.before-restore-19700101-000000"
    assert len(rows(kept, "SELECT id FROM jobs")) == 4  # the old store, whole, beside the new one
    assert len(rows(data / "vidrelay.db", "SELECT id FROM jobs")) == 3
    reopened = await SqliteStore.open(data / "vidrelay.db")
    try:
        assert (await reopened.counts()).waiting == 3
    finally:
        await reopened.close()


async def test_restore_of_a_bad_file_changes_nothing(tmp_path: Path) -> None:
    store = await filled_store(tmp_path / "vidrelay.db", jobs=2, blobs=0)
    await store.close()
    before = (tmp_path / "vidrelay.db").read_bytes()
    (tmp_path / "bad.db").write_bytes(b"nope" * 2000)
    with pytest.raises(BackupError):
        restore(tmp_path / "bad.db", tmp_path / "vidrelay.db", now=0.0)
    assert (tmp_path / "vidrelay.db").read_bytes() == before
    assert names(tmp_path) == ["bad.db", "vidrelay.db"]
