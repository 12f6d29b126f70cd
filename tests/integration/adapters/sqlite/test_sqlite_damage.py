"""A damaged file: refused at the open with one line and left byte for byte as it was; damage met
while the store runs is StoreDamaged, not an error that passes; a file too large to check within
its bound opens unchecked. The damage is real: rows the store wrote, then bytes of its table pages
overwritten on disk."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from adapters.sqlite import SqliteStore
from ports.errors import StoreDamaged, StoreRefused
from ports.jobs import NewJob
from tests.support.damage import NOW, filled_and_closed, scribble_table_pages


def checkpoint_from_another_connection(path: Path) -> None:
    """Another process checkpoints: what the store had cached of the file is stale now."""
    with closing(sqlite3.connect(path, timeout=10, isolation_level=None)) as other:
        other.execute("PRAGMA wal_checkpoint(TRUNCATE)")


async def test_a_file_whose_table_pages_are_damaged_is_refused_at_open_and_left_as_it_was(
    tmp_path: Path,
) -> None:
    path = tmp_path / "vidrelay.db"
    await filled_and_closed(path)
    scribble_table_pages(path)
    before = path.read_bytes()

    with pytest.raises(StoreRefused, match=r"vidrelay.db is damaged \(On tree page \d+") as refused:
        await SqliteStore.open(path)

    assert "\n" not in str(refused.value)
    assert path.read_bytes() == before


async def test_pages_damaged_while_the_store_runs_fail_its_calls_as_damage_not_as_a_passing_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "vidrelay.db"
    await filled_and_closed(path)
    store = await SqliteStore.open(path)
    try:
        await store.enqueue(NewJob("download_video", {}, 3), NOW)  # frames in the WAL
        scribble_table_pages(path)
        checkpoint_from_another_connection(path)

        with pytest.raises(StoreDamaged, match=r"vidrelay\.db is damaged .*malformed"):
            await store.list_jobs(limit=100_000)
    finally:
        await store.close()


async def test_a_file_too_large_to_check_in_time_opens_unchecked(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "vidrelay.db"
    await filled_and_closed(path)

    store = await SqliteStore.open(path, check_seconds=0.0)
    await store.close()

    assert "was not checked: larger than PRAGMA quick_check reads in 0s" in caplog.text
