"""The shared store for scaling out: PostgreSQL (asyncpg), one ingest and many workers."""

from adapters.postgres.store import DEFAULT_POOL_SIZE, PostgresStore

__all__ = ["DEFAULT_POOL_SIZE", "PostgresStore"]
