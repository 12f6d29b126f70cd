"""`vidrelay backup PATH`: the SQLite store copied while the bot runs, verified before it counts
(`vidrelay restore` puts such a copy back: restore.py).

PostgreSQL has its own tools for this (`pg_dump`, `pg_restore`); the memory store has nothing to keep.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from adapters.sqlite.backup import BackupError, backup
from entrypoints.settings import Settings
from ports.clock import Clock

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def run_backup(settings: Settings, path: str, *, clock: Clock) -> int:
    """`clock`: the container's wall clock, which dates a backup written into a folder."""
    if (wrong := not_sqlite(settings, "backup copies", "pg_dump")) is not None:
        print(wrong, file=sys.stderr)
        return EXIT_USAGE
    try:
        copied = backup(settings.sqlite_path, backup_target(path, clock.now()))
    except BackupError as error:
        print(f"vidrelay: {error}", file=sys.stderr)
        return EXIT_FAILED
    print(f"backed up {settings.sqlite_path} to {copied.path} ({copied.describe()})")
    return EXIT_OK


def backup_target(path: str, now: float) -> Path:
    """The file a backup to `path` writes: `path` itself, or in a folder (one that exists, or a
    path ending in `/`, created) a new dated file, so that every run keeps the ones before it."""
    given = Path(path)
    if not (path.endswith(os.sep) or given.is_dir()):
        return given
    try:
        given.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BackupError(f"cannot create the backup folder {given}: {error.strerror or error}") from error
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
    target, n = given / f"vidrelay-{stamp}.db", 1
    while target.exists():  # two backups in one second
        n += 1
        target = given / f"vidrelay-{stamp}-{n}.db"
    return target


def not_sqlite(settings: Settings, what: str, tool: str) -> str | None:
    """Why a backup or a restore refuses the configured store (None: it is SQLite's)."""
    if settings.store == "sqlite":
        return None
    return (
        f"vidrelay: {what} the SQLite store, and VIDRELAY_STORE is {settings.store}"
        f" (for PostgreSQL use {tool}: see the README's Backups)"
    )
