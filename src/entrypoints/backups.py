"""`vidrelay backup PATH`: the SQLite store copied while the bot runs, verified before it counts;
`vidrelay restore PATH`: a verified copy put in its place, only while no bot holds the data folder.

PostgreSQL has its own tools for this (`pg_dump`, `pg_restore`); the memory store has nothing to keep.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from adapters.filesystem.folder_lock import FolderInUse, holding_folder
from adapters.sqlite.backup import BackupError, backup
from adapters.sqlite.restore import restore
from entrypoints.settings import Settings

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def run_backup(settings: Settings, path: Path) -> int:
    if (wrong := _not_sqlite(settings, "backup copies", "pg_dump")) is not None:
        print(wrong, file=sys.stderr)
        return EXIT_USAGE
    target = path / time.strftime("vidrelay-%Y%m%d-%H%M%S.db", time.gmtime()) if path.is_dir() else path
    try:
        copied = backup(settings.sqlite_path, target)
    except BackupError as error:
        print(f"vidrelay: {error}", file=sys.stderr)
        return EXIT_FAILED
    print(f"backed up {settings.sqlite_path} to {copied.path} ({copied.describe()})")
    return EXIT_OK


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
