"""`vidrelay backup PATH`: the SQLite store copied while the bot runs, verified before it counts.

PostgreSQL has its own tools for this (`pg_dump`); the memory store has nothing to keep.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from adapters.sqlite.backup import BackupError, backup
from entrypoints.settings import Settings

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def run_backup(settings: Settings, path: Path) -> int:
    if settings.store != "sqlite":
        print(
            f"vidrelay: backup copies the SQLite store, and VIDRELAY_STORE is {settings.store}"
            " (for PostgreSQL use pg_dump: see the README's Backups)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    target = path / time.strftime("vidrelay-%Y%m%d-%H%M%S.db", time.gmtime()) if path.is_dir() else path
    try:
        copied = backup(settings.sqlite_path, target)
    except BackupError as error:
        print(f"vidrelay: {error}", file=sys.stderr)
        return EXIT_FAILED
    print(f"backed up {settings.sqlite_path} to {copied.path} ({copied.describe()})")
    return EXIT_OK
