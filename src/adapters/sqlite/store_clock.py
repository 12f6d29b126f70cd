"""The store's clock on SQLite: the one host's, read in SQL, which is what every lease is computed
and judged by. Callers' `now` (the Clock port, which tests drive and a process may skew) says when
a row is due, never whose it is."""

from __future__ import annotations

from typing import Final

from adapters.sqlite.connection import Db

STORE_NOW: Final = "round((julianday('now') - 2440587.5) * 86400.0, 3)"
"""Epoch seconds, to the millisecond (SQLite's own resolution; unixepoch('subsec') needs 3.42)."""
_READ = f"SELECT {STORE_NOW}"


async def store_now(db: Db) -> float:
    ((now,),) = await db.execute_fetchall(_READ)
    return float(now)
