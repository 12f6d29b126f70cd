"""The first open of a store's file: refuse what is not ours before writing a byte, then migrate.

This runs on a stdlib connection of its own, on a thread of its own, and closes it: blocking
work, once per process, off the store's hot path (the store's own connection is aiosqlite's).

A file that is not an SQLite database, another program's database, one written by a newer
vidrelay, or one whose pages are damaged is refused with StoreRefused and left exactly as it
was: the header is read before SQLite sees the file, and the schema and PRAGMA quick_check
(every page and cell of every table and index, not the index contents) run before anything
(the WAL switch included) writes. The check reads the whole file: bounded by `check_seconds`,
after which a file too large to check in time opens unchecked, with a warning.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final, TypeVar

from adapters.sqlite.connection import RETRY_PAUSE_SECONDS, FileSettings, busy, refuse_other_mode
from adapters.sqlite.schema import Migration, SchemaTooNew, migrate
from ports.errors import StoreRefused

T = TypeVar("T")
log = logging.getLogger("vidrelay.sqlite")

SQLITE_HEADER: Final = b"SQLite format 3\x00"
_CHECK_STEPS: Final = 10_000
"""Virtual machine steps between two looks at the check's deadline."""
_NOT_OURS: Final = frozenset({sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT})
_WAL: Final = "PRAGMA journal_mode = WAL"
_VERSION_AND_TABLES: Final = """
    SELECT (SELECT user_version FROM pragma_user_version),
        (SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%')
"""


def check_and_migrate(settings: FileSettings, migrations: Sequence[Migration]) -> None:
    """Make `settings.path` a WAL file at the schema of `migrations`; StoreRefused if it is not ours."""
    _refuse_foreign_bytes(settings)
    _owner_only(settings.path)
    connection = open_file(settings)
    try:
        deadline = time.monotonic() + settings.busy_timeout_seconds
        while_busy(deadline, lambda: _refuse_foreign_schema(connection, settings, len(migrations)))
        while_busy(deadline, lambda: _refuse_damaged(connection, settings))
        prepare(connection, settings)
        migrate(connection, migrations)
    except SchemaTooNew as error:
        raise StoreRefused(f"{settings.path}: {error}") from None
    finally:
        connection.close()


def open_file(settings: FileSettings) -> sqlite3.Connection:
    """Connect in autocommit mode (migrate issues BEGIN/COMMIT itself); nothing is written yet."""
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
    while_busy(deadline, lambda: refuse_other_mode(str(connection.execute(_WAL).fetchone()[0])))
    connection.execute(f"PRAGMA synchronous = {settings.synchronous}")
    connection.execute("PRAGMA foreign_keys = ON")


def while_busy(deadline: float, step: Callable[[], T]) -> T:
    """Run `step` again while SQLite answers BUSY/LOCKED, until `deadline` (time.monotonic): a
    second process opening the same new file at the same moment must wait, not fail."""
    while True:
        try:
            return step()
        except sqlite3.OperationalError as error:
            if not busy(error) or time.monotonic() >= deadline:
                raise
        time.sleep(RETRY_PAUSE_SECONDS)


def _refuse_foreign_bytes(settings: FileSettings) -> None:
    try:
        with settings.path.open("rb") as file:
            head = file.read(len(SQLITE_HEADER))
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return  # SQLite will create it, or say why it cannot
    if head and head != SQLITE_HEADER:
        raise StoreRefused(f"{settings.path} is not an SQLite database")


def _owner_only(path: Path) -> None:
    """The file holds the install's signing secret: only its owner may read it. SQLite gives the
    -wal and -shm files the main file's mode, so creating that one right is enough."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    mode = path.stat().st_mode & 0o777
    if mode & 0o077:
        # Another user's file (a shared volume) stays as its owner made it.
        with contextlib.suppress(PermissionError):
            os.chmod(path, mode & 0o700)


def _refuse_foreign_schema(connection: sqlite3.Connection, settings: FileSettings, known: int) -> None:
    try:
        # One statement, so one snapshot: another process may commit its first migration (tables
        # and version together) between two reads, which would look like a foreign database.
        version, tables = connection.execute(_VERSION_AND_TABLES).fetchone()
    except sqlite3.DatabaseError as error:
        if getattr(error, "sqlite_errorcode", 0) & 0xFF not in _NOT_OURS:
            raise
        raise StoreRefused(f"{settings.path} is not a usable SQLite database: {error}") from None
    if version > known:
        raise StoreRefused(
            f"{settings.path} is at schema version {version}, written by a newer vidrelay"
            f" (this one knows {known})"
        )
    if version == 0 and tables:
        raise StoreRefused(
            f"{settings.path} holds another program's database (tables, but no vidrelay schema)"
        )


def _refuse_damaged(connection: sqlite3.Connection, settings: FileSettings) -> None:
    if not _has_pages(settings.path):
        return  # a new file: nothing to check
    deadline = time.monotonic() + settings.check_seconds
    connection.set_progress_handler(lambda: int(time.monotonic() > deadline), _CHECK_STEPS)
    try:
        verdict = str(connection.execute("PRAGMA quick_check(1)").fetchone()[0])
    except sqlite3.DatabaseError as error:
        code = getattr(error, "sqlite_errorcode", 0) & 0xFF
        if code == sqlite3.SQLITE_INTERRUPT:
            log.warning(
                "%s was not checked: larger than PRAGMA quick_check reads in %gs",
                settings.path,
                settings.check_seconds,
            )
            return
        if code not in _NOT_OURS:
            raise
        verdict = str(error)
    finally:
        connection.set_progress_handler(None, 0)
    if verdict != "ok":
        raise StoreRefused(
            f"{settings.path} is damaged ({_first_problem(verdict)}): restore a backup (vidrelay restore)"
        )


def _has_pages(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _first_problem(verdict: str) -> str:
    """quick_check's first finding, on one line (it heads its list with the database's name)."""
    lines = [line for line in verdict.splitlines() if line.strip() and not line.startswith("*** in database")]
    return " ".join((lines[0] if lines else verdict).split())
