"""The store's one connection: aiosqlite's, whose thread runs every statement.

Each call on an aiosqlite connection is one hop to its thread and back, so the store never spends
a call per job: a group commit runs one statement per kind of operation for all of its jobs
(kinds.py). The first open checks and migrates the file on a stdlib connection of its own, on a
thread that ends with it (opening.py); that connection is closed before this one opens.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

import aiosqlite

T = TypeVar("T")
Db = aiosqlite.Connection
Work = Callable[[Db], Awaitable[T]]
"""An operation that runs alone: a function of the connection."""
Parameters = Sequence[Any] | Mapping[str, Any]

SYNCHRONOUS_LEVELS: Final = ("OFF", "NORMAL", "FULL", "EXTRA")
BUSY_CODES: Final = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
RETRY_PAUSE_SECONDS: Final = 0.01


@dataclass(frozen=True, slots=True)
class FileSettings:
    path: Path
    synchronous: str = "FULL"
    busy_timeout_seconds: float = 5.0
    connection_class: type[sqlite3.Connection] = sqlite3.Connection
    """The driver's connection type; tests pass a subclass to cause failures SQLite cannot."""
    check_seconds: float = 10.0
    """How long the first open may spend proving an existing file sound (PRAGMA quick_check)."""


class SqliteConnection:
    """The connection, opened at start; reopened after being told to forget it."""

    def __init__(self, settings: FileSettings) -> None:
        self.settings = settings
        self._db: Db | None = None

    async def start(self, first_open: Callable[[], None]) -> None:
        """Run `first_open` (checks and migrations, blocking) on a thread of its own, then connect."""
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vidrelay-sqlite-open")
        try:
            await asyncio.get_running_loop().run_in_executor(executor, first_open)
        finally:
            await asyncio.to_thread(executor.shutdown, wait=True)
        self._db = await connect(self.settings)

    async def db(self) -> Db:
        """The connection, opening it first if it was forgotten."""
        if self._db is None:
            self._db = await connect(self.settings)
        return self._db

    async def forget(self) -> None:
        """Close the connection (rolling back whatever it was in); the next use opens a new one."""
        db, self._db = self._db, None
        if db is not None:
            with contextlib.suppress(Exception):
                await db.close()

    async def close(self) -> None:
        await self.forget()

    def stop(self) -> None:
        """Let the connection's thread end (the event loop goes away without close)."""
        db, self._db = self._db, None
        if db is not None:
            db.stop()


async def connect(settings: FileSettings) -> Db:
    """Open a file already known to be ours (checked and migrated), with the store's PRAGMAs."""
    db = await aiosqlite.connect(
        settings.path,
        timeout=settings.busy_timeout_seconds,
        # The writer issues BEGIN and COMMIT itself. Besides, the driver begins a transaction
        # before any INSERT, UPDATE or DELETE that finds none open, so that a write never commits
        # on its own, even one sent on after a failure that ended the transaction (transaction.py).
        isolation_level="IMMEDIATE",
        factory=settings.connection_class,
    )
    try:
        # The values are ones the caller validated (PRAGMA takes no bound parameters).
        await db.execute(f"PRAGMA busy_timeout = {int(settings.busy_timeout_seconds * 1000):d}")
        deadline = time.monotonic() + settings.busy_timeout_seconds
        await while_busy(deadline, lambda: _switch_to_wal(db))
        await db.execute(f"PRAGMA synchronous = {settings.synchronous}")
        await db.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        await db.close()
        raise
    return db


async def _switch_to_wal(db: Db) -> None:
    rows = list(await db.execute_fetchall("PRAGMA journal_mode = WAL"))
    refuse_other_mode(str(rows[0][0]))


def refuse_other_mode(mode: str) -> None:
    if mode.lower() != "wal":
        # SQLite keeps the old mode when it cannot take the lock the switch needs: busy, not broken.
        error = sqlite3.OperationalError(f"cannot switch to WAL yet (journal_mode is {mode})")
        error.sqlite_errorcode = sqlite3.SQLITE_BUSY
        raise error


def busy(error: sqlite3.OperationalError) -> bool:
    return getattr(error, "sqlite_errorcode", 0) & 0xFF in BUSY_CODES


async def while_busy(deadline: float, step: Callable[[], Awaitable[T]]) -> T:
    """Run `step` again while SQLite answers BUSY/LOCKED, until `deadline` (time.monotonic).

    Switching a file to WAL needs an exclusive lock, and SQLite returns SQLITE_BUSY at once there
    instead of calling the busy handler: another process opening the file at the same moment
    would fail without this.
    """
    while True:
        try:
            return await step()
        except sqlite3.OperationalError as error:
            if not busy(error) or time.monotonic() >= deadline:
                raise
        await asyncio.sleep(RETRY_PAUSE_SECONDS)


async def fetch_all(db: Db, sql: str, params: Parameters = ()) -> list[Any]:
    """Every row of one statement, in one call on the connection."""
    return list(await db.execute_fetchall(sql, params))


async def fetch_one(db: Db, sql: str, params: Parameters = ()) -> Any:
    """The first row of one statement (None: no row), in one call on the connection."""
    rows = await fetch_all(db, sql, params)
    return rows[0] if rows else None


async def changes(db: Db, sql: str, params: Parameters = ()) -> int:
    """How many rows one statement changed, in one call on the connection."""
    cursor = await db.execute(sql, params)
    return cursor.rowcount
