"""The first open of a store's file: refuse what is not ours before writing a byte, then migrate.

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
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from adapters.sqlite.connection import FileSettings, open_file, prepare, while_busy
from adapters.sqlite.schema import Migration, SchemaTooNew, migrate
from ports.errors import StoreRefused

log = logging.getLogger("vidrelay.sqlite")

SQLITE_HEADER: Final = b"SQLite format 3\x00"
_CHECK_STEPS: Final = 10_000
"""Virtual machine steps between two looks at the check's deadline."""
_NOT_OURS: Final = frozenset({sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT})
_VERSION_AND_TABLES: Final = """
    SELECT (SELECT user_version FROM pragma_user_version),
        (SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%')
"""


def open_checked(settings: FileSettings, migrations: Sequence[Migration]) -> sqlite3.Connection:
    """A prepared, migrated connection to `settings.path`; StoreRefused if the file is not ours."""
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
        connection.close()
        raise StoreRefused(f"{settings.path}: {error}") from None
    except BaseException:
        connection.close()
        raise
    return connection


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
