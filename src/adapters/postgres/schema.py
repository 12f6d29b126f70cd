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
from dataclasses import dataclass
from typing import Final

import asyncpg

from ports.errors import StoreError

VERSIONS_TABLE: Final = "vidrelay_schema"
MIGRATION_LOCK: Final = 0x7669_6472_0001
"""Advisory lock key of the migrations ("vidr" + 1); other keys of this adapter sit beside it."""


@dataclass(frozen=True, slots=True)
class Migration:
    name: str
    statements: tuple[str, ...]


class SchemaTooNew(StoreError):
    """The database was migrated by a newer vidrelay; running old code on it could corrupt its meaning."""


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        "parked confirmations",
        (
            """
            CREATE TABLE pending (
                id text PRIMARY KEY,
                chat_id bigint NOT NULL,
                user_id bigint NOT NULL,
                message_id bigint NOT NULL,
                job_name text NOT NULL,
                job_payload text NOT NULL,
                job_max_attempts integer NOT NULL,
                job_available_at double precision NOT NULL,
                job_key text NOT NULL DEFAULT '',
                job_owner_id bigint,
                blob_key text,
                created_at double precision NOT NULL
            )
            """,
            "CREATE INDEX pending_created_at ON pending (created_at)",
            "CREATE INDEX pending_blob_key ON pending (blob_key) WHERE blob_key IS NOT NULL",
        ),
    ),
    Migration(
        "blob index",
        (
            # Shared by every worker: file_ids answer a cached video on any machine, while
            # file_name names bytes in the blob folder of whichever worker downloaded them.
            """
            CREATE TABLE blobs (
                key text PRIMARY KEY,
                file_name text,
                size bigint,
                duration double precision,
                width integer,
                height integer,
                file_id text,
                file_unique_id text,
                created_at double precision NOT NULL,
                last_used double precision NOT NULL
            )
            """,
        ),
    ),
    Migration(
        "scraped-info cache and handled urls",
        (
            # canonical is the entries' canonical URLs; evicting a URL takes every row sharing one.
            """
            CREATE TABLE video_info (
                url text PRIMARY KEY,
                entries text NOT NULL,
                canonical text[] NOT NULL,
                created_at double precision NOT NULL
            )
            """,
            "CREATE INDEX video_info_created_at ON video_info (created_at)",
            "CREATE INDEX video_info_canonical ON video_info USING gin (canonical)",
            """
            CREATE TABLE handled_urls (
                chat_id bigint NOT NULL,
                message_id bigint NOT NULL,
                url text NOT NULL,
                created_at double precision NOT NULL,
                PRIMARY KEY (chat_id, message_id, url)
            )
            """,
            "CREATE INDEX handled_urls_created_at ON handled_urls (created_at)",
        ),
    ),
)

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
