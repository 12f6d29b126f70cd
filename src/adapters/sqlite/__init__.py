"""The embedded default store: one SQLite file (aiosqlite, WAL, group commit)."""

from adapters.sqlite.store import DEFAULT_SYNCHRONOUS, SqliteStore

__all__ = ["DEFAULT_SYNCHRONOUS", "SqliteStore"]
