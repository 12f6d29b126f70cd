"""The PostgreSQL schema: an append-only list of migrations, versioned in a table.

The tables mean what the SQLite store's mean (times are the Clock port's epoch seconds, JSON
values are the same text), so the two adapters read side by side. Version k means the first k
migrations are applied; each runs in one transaction with its version row. Every transaction
first takes a transaction-level advisory lock, so processes starting at once on an empty
database queue behind each other and each migration runs exactly once; being transaction-level,
the lock also holds behind a pooler that hands out connections per transaction. Never edit or
reorder a shipped migration: append a new one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import asyncpg

from adapters.postgres.migrations import MIGRATIONS, Migration
from ports.errors import StoreRefused

__all__ = ["MIGRATIONS", "ForeignTables", "Migration", "SchemaTooNew", "migrate", "schema_version"]

VERSIONS_TABLE: Final = "vidrelay_schema"
MIGRATION_LOCK: Final = 0x7669_6472_0001
"""Advisory lock key of the migrations ("vidr" + 1); other keys of this adapter sit beside it."""


class SchemaTooNew(StoreRefused):
    """The database was migrated by a newer vidrelay; running old code on it could corrupt its meaning."""


class ForeignTables(StoreRefused):
    """The database has no vidrelay version table but holds tables of the names vidrelay creates:
    another program's, not ours to change."""


_CREATE_VERSIONS = """
    CREATE TABLE vidrelay_schema (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
    )
"""
_VERSION = "SELECT coalesce(max(version), 0) FROM vidrelay_schema"
_RECORD = "INSERT INTO vidrelay_schema (version, name) VALUES ($1, $2)"


async def schema_version(connection: asyncpg.Connection) -> int:
    if await connection.fetchval("SELECT to_regclass($1)", VERSIONS_TABLE) is None:
        return 0
    version: int = await connection.fetchval(_VERSION)
    return version


async def migrate(connection: asyncpg.Connection, migrations: Sequence[Migration] = MIGRATIONS) -> int:
    """Bring the database up to `len(migrations)`; the number of migrations this call applied.

    SchemaTooNew when the database is ahead of this code. Driver errors propagate as they are.
    """
    applied = 0
    while await _apply_next(connection, migrations):
        applied += 1
    return applied


async def _apply_next(connection: asyncpg.Connection, migrations: Sequence[Migration]) -> bool:
    """Apply the first missing migration with its version row; False when none is missing."""
    async with connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
        # Under the lock: nobody else creates it at the same time.
        if await connection.fetchval("SELECT to_regclass($1)", VERSIONS_TABLE) is None:
            await _refuse_foreign(connection)
            await connection.execute(_CREATE_VERSIONS)
        version: int = await connection.fetchval(_VERSION)
        if version > len(migrations):
            raise SchemaTooNew(
                f"the database is at schema version {version}; this vidrelay knows {len(migrations)}"
            )
        if version == len(migrations):
            return False
        migration = migrations[version]
        for statement in migration.statements:
            await connection.execute(statement)
        await connection.execute(_RECORD, version + 1, migration.name)
    return True


_OURS: Final = (
    "jobs",
    "failed_jobs",
    "pending",
    "blobs",
    "blob_bytes",
    "video_info",
    "handled_urls",
    "install_secrets",
    "inbox",
    "user_links",
    "job_cancels",
    "ytdlp_tallies",
    "ytdlp_failed_links",
    "ytdlp_rollbacks",
)


async def _refuse_foreign(connection: asyncpg.Connection) -> None:
    rows = await connection.fetch(
        "SELECT relname FROM pg_class WHERE relkind IN ('r', 'p', 'v') AND relname = ANY ($1::text[])"
        " AND pg_table_is_visible(oid) ORDER BY relname",
        list(_OURS),
    )
    if rows:
        names = ", ".join(row[0] for row in rows)
        raise ForeignTables(f"the database already holds tables vidrelay did not create ({names})")
