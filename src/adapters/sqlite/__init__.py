"""The embedded default store: one SQLite file (WAL, set-oriented group commits on aiosqlite)."""

from adapters.sqlite.store import DEFAULT_SYNCHRONOUS, SqliteStore

__all__ = ["DEFAULT_SYNCHRONOUS", "SqliteStore"]
