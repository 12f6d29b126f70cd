"""What the SQLite store's tests look at besides the store: the file through a connection of
their own, a query's plan, connections that record or fail on purpose."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any, ClassVar

from adapters.sqlite import SqliteStore
from ports.jobs import NewJob

NOW = 1_700_000_000.0


def job(name: str = "download_video", **payload: object) -> NewJob:
    return NewJob(name, dict(payload), 3)  # type: ignore[arg-type]


def other_connection(path: Path, sql: str, parameters: tuple[object, ...] | list[object] = ()) -> list[Any]:
    """One statement on a connection of its own (another process, as far as the store can tell)."""
    with closing(sqlite3.connect(path, timeout=10, isolation_level=None)) as other:
        return other.execute(sql, parameters).fetchall()


class RecordingConnection(sqlite3.Connection):
    """Remembers the statements the store ran: per-connection PRAGMAs are visible nowhere else,
    and each one is a call on the store's connection (a hop to its thread)."""

    statements: ClassVar[list[str]] = []

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        RecordingConnection.statements.append(sql)
        return super().execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        RecordingConnection.statements.append(sql)
        return super().executemany(sql, *args)


async def names(store: SqliteStore) -> list[str]:
    return [j.name for j in await store.list_jobs()]


def plan_of(path: Path, sql: str, parameters: tuple[object, ...] | list[object]) -> str:
    return " | ".join(row[3] for row in other_connection(path, f"EXPLAIN QUERY PLAN {sql}", parameters))


def file_modes(folder: Path, pattern: str) -> dict[str, int]:
    return {p.name: p.stat().st_mode & 0o777 for p in folder.glob(pattern)}


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
