"""The embedded default store: one SQLite file (WAL, group commit on a connection thread of its own)."""

from adapters.sqlite.store import DEFAULT_SYNCHRONOUS, SqliteStore

__all__ = ["DEFAULT_SYNCHRONOUS", "SqliteStore"]
