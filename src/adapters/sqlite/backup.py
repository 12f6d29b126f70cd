"""A consistent copy of the SQLite store while the bot writes to it, and the check of a copy.

SQLite's online backup API copies the pages of one read snapshot when it runs in a single step:
every transaction committed before the copy began is in it, none that began later is partly in
it, and in WAL mode the bot's writers are never blocked meanwhile. The copy is written beside its
target, checked with `PRAGMA integrity_check`, made a single self-contained file (no WAL), and only
then renamed into place — a failed or interrupted backup never leaves a half-written file where a
good one is expected.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from adapters.sqlite.schema import MIGRATIONS, schema_version

BUSY_TIMEOUT_SECONDS = 30.0
_COUNTED = ("jobs", "failed_jobs", "blobs")


class BackupError(Exception):
    """The copy could not be made, or a file is not a sound vidrelay store (one line, for the CLI)."""


@dataclass(frozen=True, slots=True)
class StoreFile:
    """What a verified store file holds."""

    path: Path
    size_bytes: int
    schema_version: int
    rows: dict[str, int]

    def describe(self) -> str:
        counts = ", ".join(f"{n} {table}" for table, n in self.rows.items())
        return f"{self.size_bytes / 1e6:.1f} MB, schema {self.schema_version}, integrity ok: {counts}"


def backup(source: Path, target: Path) -> StoreFile:
    """Copy the store at `source` to `target` (replaced only once the copy is verified).

    The copy is readable by its owner only, like the store: it holds the install's signing secret.
    Errors name the side at fault: the store that cannot be read, or the copy that cannot be written.
    """
    if not source.is_file():
        raise BackupError(f"no SQLite store at {source}")
    if not target.parent.is_dir():
        raise BackupError(f"cannot write the backup {target}: the folder {target.parent} does not exist")
    partial = target.with_name(f".{target.name}.partial")
    try:
        partial.unlink(missing_ok=True)
        _create_private(partial)
    except OSError as error:
        raise BackupError(f"cannot write the backup {target}: {error.strerror or error}") from error
    try:
        with (
            _connect(source, read_only=True, refused=f"cannot read the store {source}") as live,
            _connect(partial, refused=f"cannot write the backup {target}") as copy,
        ):
            live.backup(copy)  # pages=-1: one step, one snapshot
            copy.execute("PRAGMA journal_mode=DELETE")  # one file: the copy carries no WAL of its own
        _sync(partial)
        checked = verify(partial)
        partial.replace(target)
    except sqlite3.Error as error:
        raise BackupError(f"copying {source} to {target} failed: {error}") from error
    finally:
        partial.unlink(missing_ok=True)
    _sync(target.parent)
    return StoreFile(target, checked.size_bytes, checked.schema_version, checked.rows)


def _create_private(path: Path) -> None:
    """An empty file only its owner may read: SQLite then writes into it and keeps its mode."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def verify(path: Path) -> StoreFile:
    """The file passes `PRAGMA integrity_check` and is a vidrelay store this version can open."""
    if not path.is_file():
        raise BackupError(f"no file at {path}")
    try:
        with _connect(path, read_only=True) as db:
            problems = [row[0] for row in db.execute("PRAGMA integrity_check")]
            if problems != ["ok"]:
                raise BackupError(f"{path} fails integrity_check: {'; '.join(problems[:3])}")
            version = schema_version(db)
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not set(_COUNTED) <= tables:
                raise BackupError(f"{path} is an SQLite file, but not a vidrelay store")
            if version > len(MIGRATIONS):
                raise BackupError(
                    f"{path} is at schema version {version}; this vidrelay knows {len(MIGRATIONS)}"
                )
            rows = {t: _count(db, t) for t in _COUNTED}
    except sqlite3.DatabaseError as error:
        raise BackupError(f"{path} is not a readable SQLite store: {error}") from error
    return StoreFile(path, path.stat().st_size, version, rows)


def _count(db: sqlite3.Connection, table: str) -> int:
    assert table in _COUNTED  # a fixed name, never input: safe to format into the statement
    return int(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])  # noqa: S608


@contextlib.contextmanager
def _connect(
    path: Path, *, read_only: bool = False, refused: str | None = None
) -> Iterator[sqlite3.Connection]:
    """`refused` begins the message of a file that cannot be opened: which side it is."""
    # mode=ro never creates a missing file, and never writes to the bot's database.
    uri = f"file:{quote(str(path))}?mode={'ro' if read_only else 'rwc'}"
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
    except sqlite3.Error as error:
        raise BackupError(f"{refused or f'cannot open {path}'}: {error}") from error
    try:
        yield connection
    finally:
        connection.close()


def _sync(path: Path) -> None:
    """Flush a file (or a folder's entries) to the disk: a backup is worth what survives a power cut."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
