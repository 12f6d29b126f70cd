"""`vidrelay restore PATH`: a verified copy (`vidrelay backup`'s) put in place of the SQLite store,
only while no bot holds the data folder; the store it replaces is kept beside it."""

from __future__ import annotations

import sys
from pathlib import Path

from adapters.filesystem.folder_lock import FolderInUse, holding_folder
from adapters.sqlite.backup import BackupError
from adapters.sqlite.restore import restore
from entrypoints.backup import EXIT_FAILED, EXIT_OK, EXIT_USAGE, not_sqlite
from entrypoints.settings import Settings
from ports.clock import Clock


def run_restore(settings: Settings, path: Path, *, clock: Clock) -> int:
    """`clock`: the container's wall clock, which names the store kept aside."""
    if (wrong := not_sqlite(settings, "restore replaces", "pg_restore")) is not None:
        print(wrong, file=sys.stderr)
        return EXIT_USAGE
    try:
        with holding_folder(settings.data_dir, "vidrelay restore"):
            restored, kept = restore(path, settings.sqlite_path, now=clock.now())
    except FolderInUse as error:
        print(f"vidrelay: {error}: stop it before a restore", file=sys.stderr)
        return EXIT_USAGE
    except (BackupError, OSError) as error:
        print(f"vidrelay: restore of {path} failed: {error}", file=sys.stderr)
        return EXIT_FAILED
    print(f"restored {path} as {restored.path} ({restored.describe()})")
    print(f"the store before it is kept as {kept}" if kept else "there was no store before it")
    return EXIT_OK
