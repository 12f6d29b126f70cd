"""The store's one sqlite3 connection, on a thread of its own.

A transaction of many statements must run as one uninterrupted call on the connection's thread.
aiosqlite offers only statement-sized calls publicly (one thread hop each, measured at about half
the throughput of one hop per group commit), so the store runs the stdlib driver on a
one-thread executor instead: one hop per transaction, and no private attribute of anybody.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeVar

T = TypeVar("T")
Work = Callable[[sqlite3.Connection], T]

SYNCHRONOUS_LEVELS: Final = ("OFF", "NORMAL", "FULL", "EXTRA")
_BUSY_CODES: Final = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
_RETRY_PAUSE_SECONDS: Final = 0.01


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
    """Runs work on the connection's thread; reopens the connection after being told to forget it."""

    def __init__(self, settings: FileSettings) -> None:
        self.settings = settings
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vidrelay-sqlite")
        self._connection: sqlite3.Connection | None = None

    async def start(self, first_open: Callable[[], sqlite3.Connection]) -> None:
        """Open the connection with `first_open` (checks and migrations), on the thread."""
        loop = asyncio.get_running_loop()
        try:
            self._connection = await loop.run_in_executor(self._executor, first_open)
        except BaseException:
            await self._join()
            raise

    async def run(self, work: Work[T]) -> T:
        """`work(connection)` on the connection's thread, opening the connection first if needed."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._call, work)

    def _call(self, work: Work[T]) -> T:
        if self._connection is None:
            self._connection = connect(self.settings)
        return work(self._connection)

    async def forget(self) -> None:
        """Close the connection (rolling back whatever it was in); the next work opens a new one."""
        await asyncio.get_running_loop().run_in_executor(self._executor, self._close)

    async def close(self) -> None:
        try:
            await self.forget()
        finally:
            await self._join()

    async def _join(self) -> None:
        await asyncio.to_thread(self._executor.shutdown, wait=True)

    def stop(self) -> None:
        """Let the thread end once it is idle (also when the event loop goes away without close)."""
        self._executor.shutdown(wait=False)

    def _close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(sqlite3.Error):
                connection.close()


def connect(settings: FileSettings) -> sqlite3.Connection:
    """Reopen a file already known to be ours, with the store's PRAGMAs."""
    connection = open_file(settings)
    try:
        prepare(connection, settings)
    except BaseException:
        connection.close()
        raise
    return connection


def open_file(settings: FileSettings) -> sqlite3.Connection:
    """Connect in autocommit mode (the writer issues BEGIN/COMMIT itself); nothing is written yet."""
    connection = sqlite3.connect(
        settings.path,
        timeout=settings.busy_timeout_seconds,
        isolation_level=None,
        factory=settings.connection_class,
    )
    # The value is a float the caller validated (PRAGMA takes no bound parameters).
    connection.execute(f"PRAGMA busy_timeout = {int(settings.busy_timeout_seconds * 1000):d}")
    return connection


def prepare(connection: sqlite3.Connection, settings: FileSettings) -> None:
    """WAL, the durability level and foreign keys: the first writes to a new file."""
    deadline = time.monotonic() + settings.busy_timeout_seconds
    while_busy(deadline, lambda: _switch_to_wal(connection))
    connection.execute(f"PRAGMA synchronous = {settings.synchronous}")
    connection.execute("PRAGMA foreign_keys = ON")


def _switch_to_wal(connection: sqlite3.Connection) -> None:
    mode = str(connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
    if mode != "wal":
        # SQLite keeps the old mode when it cannot take the lock the switch needs: busy, not broken.
        error = sqlite3.OperationalError(f"cannot switch to WAL yet (journal_mode is {mode})")
        error.sqlite_errorcode = sqlite3.SQLITE_BUSY
        raise error


def while_busy(deadline: float, step: Callable[[], T]) -> T:
    """Run `step` again while SQLite answers BUSY/LOCKED, until `deadline` (time.monotonic).

    Switching a brand-new file to WAL needs an exclusive lock, and SQLite returns SQLITE_BUSY at
    once there instead of calling the busy handler: a second process opening the file at the
    same moment would fail without this.
    """
    while True:
        try:
            return step()
        except sqlite3.OperationalError as error:
            if (
                getattr(error, "sqlite_errorcode", 0) & 0xFF not in _BUSY_CODES
                or time.monotonic() >= deadline
            ):
                raise
        time.sleep(_RETRY_PAUSE_SECONDS)
