"""Put a verified backup in place of the store, keeping the old store aside.

The caller holds the data folder's lock: no process has the database open. The backup is
checked first, copied beside the store, and renamed over it only once the copy is complete; the
old store (with its WAL, which may hold committed transactions) is renamed aside before that, so
at every moment one complete store is on disk.
"""

from __future__ import annotations

import time
from pathlib import Path

from adapters.sqlite.backup import StoreFile, backup, verify

_COMPANIONS = ("", "-wal", "-shm")
"""SQLite's files for one database: moved together, so the WAL stays with its database."""


def restore(source: Path, store: Path, *, now: float) -> tuple[StoreFile, Path | None]:
    """Restore `source` as `store`; the restored file and where the old store was kept (None: none),
    named by the wall time `now`."""
    verify(source)
    incoming = store.with_name(f"{store.name}.restoring")
    restored = backup(source, incoming)
    aside = _aside(store, now)
    kept = _move_aside(store, aside)
    incoming.replace(store)
    return StoreFile(store, restored.size_bytes, restored.schema_version, restored.rows), kept


def _aside(store: Path, now: float) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
    return store.with_name(f"{store.name}.before-restore-{stamp}")


def _move_aside(store: Path, aside: Path) -> Path | None:
    if not store.exists():
        return None
    for suffix in _COMPANIONS:
        companion = store.with_name(store.name + suffix)
        if companion.exists():
            companion.replace(aside.with_name(aside.name + suffix))
    return aside
