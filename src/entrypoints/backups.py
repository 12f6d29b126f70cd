"""`vidrelay backup PATH`: the SQLite store copied while the bot runs, verified before it counts;
`vidrelay restore PATH`: a verified copy put in its place, only while no bot holds the data folder.

PostgreSQL has its own tools for this (`pg_dump`, `pg_restore`); the memory store has nothing to keep.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from adapters.filesystem.folder_lock import FolderInUse, holding_folder
from adapters.sqlite.backup import BackupError, backup
from adapters.sqlite.restore import restore
from entrypoints.settings import Settings

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def run_backup(settings: Settings, path: str) -> int:
    if (wrong := _not_sqlite(settings, "backup copies", "pg_dump")) is not None:
        print(wrong, file=sys.stderr)
        return EXIT_USAGE
    try:
        copied = backup(settings.sqlite_path, backup_target(path, time.time()))
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


def run_restore(settings: Settings, path: Path) -> int:
    if (wrong := _not_sqlite(settings, "restore replaces", "pg_restore")) is not None:
        print(wrong, file=sys.stderr)
        return EXIT_USAGE
    try:
        with holding_folder(settings.data_dir, "vidrelay restore"):
            restored, kept = restore(path, settings.sqlite_path)
    except FolderInUse as error:
        print(f"vidrelay: {error}: stop it before a restore", file=sys.stderr)
        return EXIT_USAGE
    except (BackupError, OSError) as error:
        print(f"vidrelay: restore of {path} failed: {error}", file=sys.stderr)
        return EXIT_FAILED
    print(f"restored {path} as {restored.path} ({restored.describe()})")
    print(f"the store before it is kept as {kept}" if kept else "there was no store before it")
    return EXIT_OK


def _not_sqlite(settings: Settings, what: str, tool: str) -> str | None:
    if settings.store == "sqlite":
        return None
    return (
        f"vidrelay: {what} the SQLite store, and VIDRELAY_STORE is {settings.store}"
        f" (for PostgreSQL use {tool}: see the README's Backups)"
    )
