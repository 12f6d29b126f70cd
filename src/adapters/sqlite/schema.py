"""The SQLite schema: an append-only list of migrations, versioned by `PRAGMA user_version`.

Version k means the first k migrations are applied. Each migration runs once, inside one
transaction together with the version bump, so a crash mid-migration leaves the previous
version intact. Never edit or reorder a shipped migration: append a new one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Migration:
    name: str
    statements: tuple[str, ...]


class SchemaTooNew(Exception):
    """The file was written by a newer vidrelay; running old code on it could corrupt its meaning."""


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        "jobs and dead letters",
        (
            """
            CREATE TABLE jobs (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                name TEXT NOT NULL,
                payload TEXT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                max_attempts INTEGER NOT NULL,
                available_at REAL NOT NULL,
                key TEXT NOT NULL DEFAULT '',
                owner_id INTEGER,
                claimed_by TEXT,
                lease_until REAL,
                last_error TEXT,
                created_at REAL NOT NULL
            )
            """,
            # The claim walks the primary key (FIFO by id) and stops at the first claimable row;
            # these serve the wake-up time (next due row, next lease expiry) and the lookups.
            "CREATE INDEX jobs_available_at ON jobs (available_at)",
            "CREATE INDEX jobs_lease_until ON jobs (lease_until) WHERE lease_until IS NOT NULL",
            "CREATE INDEX jobs_name ON jobs (name)",
            "CREATE INDEX jobs_owner ON jobs (owner_id) WHERE owner_id IS NOT NULL",
            """
            CREATE TABLE failed_jobs (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                job_id INTEGER NOT NULL,
                name TEXT NOT NULL,
                payload TEXT NOT NULL,
                error TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                max_attempts INTEGER NOT NULL,
                key TEXT NOT NULL DEFAULT '',
                owner_id INTEGER,
                created_at REAL NOT NULL,
                failed_at REAL NOT NULL
            )
            """,
        ),
    ),
    Migration(
        "parked confirmations",
        (
            """
            CREATE TABLE pending (
                id TEXT PRIMARY KEY,
                chat_id INTEGER NOT NULL,
                user_id INTEGER NOT NULL,
                message_id INTEGER NOT NULL,
                job_name TEXT NOT NULL,
                job_payload TEXT NOT NULL,
                job_max_attempts INTEGER NOT NULL,
                job_available_at REAL NOT NULL,
                job_key TEXT NOT NULL DEFAULT '',
                job_owner_id INTEGER,
                blob_key TEXT,
                created_at REAL NOT NULL
            ) WITHOUT ROWID
            """,
            "CREATE INDEX pending_created_at ON pending (created_at)",
            "CREATE INDEX pending_blob_key ON pending (blob_key) WHERE blob_key IS NOT NULL",
        ),
    ),
    Migration(
        "blob index",
        (
            """
            CREATE TABLE blobs (
                key TEXT PRIMARY KEY,
                file_name TEXT,
                size INTEGER,
                duration REAL,
                width INTEGER,
                height INTEGER,
                file_id TEXT,
                file_unique_id TEXT,
                created_at REAL NOT NULL,
                last_used REAL NOT NULL
            ) WITHOUT ROWID
            """,
        ),
    ),
    Migration(
        "scraped-info cache and handled urls",
        (
            """
            CREATE TABLE video_info (
                url TEXT PRIMARY KEY,
                entries TEXT NOT NULL,
                canonical TEXT NOT NULL,
                created_at REAL NOT NULL
            ) WITHOUT ROWID
            """,
            "CREATE INDEX video_info_created_at ON video_info (created_at)",
            """
            CREATE TABLE handled_urls (
                chat_id INTEGER NOT NULL,
                message_id INTEGER NOT NULL,
                url TEXT NOT NULL,
                created_at REAL NOT NULL,
                PRIMARY KEY (chat_id, message_id, url)
            ) WITHOUT ROWID
            """,
            "CREATE INDEX handled_urls_created_at ON handled_urls (created_at)",
        ),
    ),
    Migration(
        "install secrets",
        (
            """
            CREATE TABLE install_secrets (
                name TEXT PRIMARY KEY,
                value BLOB NOT NULL,
                created_at REAL NOT NULL
            ) WITHOUT ROWID
            """,
        ),
    ),
    Migration(
        "chat settings",
        (
            """
            CREATE TABLE chat_settings (
                chat_id INTEGER PRIMARY KEY,
                max_height INTEGER,
                audio_only INTEGER NOT NULL,
                ask_long_videos INTEGER NOT NULL,
                ask_longer_than_seconds INTEGER,
                updated_at REAL NOT NULL
            )
            """,
        ),
    ),
    Migration(
        "fenced leases and suspects",
        (
            # The fencing token: bumped by every claim, named by every finishing write.
            "ALTER TABLE jobs ADD COLUMN token INTEGER NOT NULL DEFAULT 0",
            # Its worker died holding it: it runs alone until an attempt ends normally.
            "ALTER TABLE jobs ADD COLUMN suspect INTEGER NOT NULL DEFAULT 0",
            # The rows a worker holds: its heartbeat, its in-flight set when it dies.
            "CREATE INDEX jobs_claimed_by ON jobs (claimed_by) WHERE claimed_by IS NOT NULL",
        ),
    ),
    Migration(
        "update inbox",
        (
            # An update is kept here before Telegram hears it arrived; a handled one keeps its row
            # (handled_at) until swept, so a batch handed out again is not handled twice.
            """
            CREATE TABLE inbox (
                update_id INTEGER PRIMARY KEY,
                lane TEXT NOT NULL,
                body TEXT NOT NULL,
                received_at REAL NOT NULL,
                handled_at REAL
            )
            """,
            "CREATE INDEX inbox_waiting ON inbox (update_id) WHERE handled_at IS NULL",
            "CREATE INDEX inbox_handled_at ON inbox (handled_at) WHERE handled_at IS NOT NULL",
        ),
    ),
    Migration(
        "fair order",
        (
            # Whose turn a row takes, and its place in the fair order (ports.queue).
            "ALTER TABLE jobs ADD COLUMN requester INTEGER",
            "ALTER TABLE jobs ADD COLUMN turn INTEGER NOT NULL DEFAULT 0",
            # The claim walks this; the lowest free turn is its first entry.
            "CREATE INDEX jobs_fair ON jobs (turn, id) WHERE claimed_by IS NULL",
            # A requester's highest queued turn, for the next row's.
            "CREATE INDEX jobs_requester ON jobs (requester, turn) WHERE requester IS NOT NULL",
        ),
    ),
    Migration(
        "per-user link counts",
        (
            # One row per counted link: the hourly and daily limits read a user's recent rows.
            "CREATE TABLE user_links (user_id INTEGER NOT NULL, at REAL NOT NULL)",
            "CREATE INDEX user_links_by_user ON user_links (user_id, at)",
        ),
    ),
    Migration(
        "cancel marks",
        (
            # A user cancelled a running job: its holder's heartbeat reads this and stops it.
            """
            CREATE TABLE job_cancels (
                job_id INTEGER PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE
            )
            """,
        ),
    ),
    Migration(
        "yt-dlp record",
        (
            # How each extractor fared on each yt-dlp release (ports.ytdlp_record).
            """
            CREATE TABLE ytdlp_tallies (
                extractor TEXT NOT NULL,
                version TEXT NOT NULL,
                successes INTEGER NOT NULL DEFAULT 0,
                failures INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (extractor, version)
            ) WITHOUT ROWID
            """,
            # The links that failed since the extractor's last success on the release; after a
            # rollback, the links whose jobs are to be requeued (once).
            """
            CREATE TABLE ytdlp_failed_links (
                extractor TEXT NOT NULL,
                version TEXT NOT NULL,
                url TEXT NOT NULL,
                failed_at REAL NOT NULL,
                requeued INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (extractor, version, url)
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE ytdlp_rollbacks (
                version TEXT PRIMARY KEY,
                extractor TEXT NOT NULL,
                to_version TEXT NOT NULL,
                at REAL NOT NULL
            ) WITHOUT ROWID
            """,
        ),
    ),
    Migration(
        "a chat's language",
        # NULL: automatic (the user's Telegram app's language in a private chat, English in a group).
        ("ALTER TABLE chat_settings ADD COLUMN language TEXT",),
    ),
    Migration(
        "send as file",
        # A chat's videos come as documents (the downloaded bytes, no player).
        ("ALTER TABLE chat_settings ADD COLUMN as_file INTEGER NOT NULL DEFAULT 0",),
    ),
)


def schema_version(connection: sqlite3.Connection) -> int:
    row = connection.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(connection: sqlite3.Connection, migrations: Sequence[Migration] = MIGRATIONS) -> int:
    """Bring the file up to `len(migrations)`, one transaction per migration; the version reached.

    The version is re-read under the write lock, so two processes opening the same file at once
    (the bot and the CLI) never apply a migration twice. Needs an autocommit connection.
    """
    while _apply_next(connection, migrations):
        pass
    return len(migrations)


def _apply_next(connection: sqlite3.Connection, migrations: Sequence[Migration]) -> bool:
    """Apply the first missing migration with its version bump; False when none is missing."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        version = schema_version(connection)
        _check_known(version, migrations)
        if version < len(migrations):
            for statement in migrations[version].statements:
                connection.execute(statement)
            # PRAGMA takes no bound parameters; the value is an int computed here.
            connection.execute(f"PRAGMA user_version = {version + 1:d}")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
    return version < len(migrations)


def _check_known(version: int, migrations: Sequence[Migration]) -> None:
    if version > len(migrations):
        raise SchemaTooNew(
            f"the database is at schema version {version}; this vidrelay knows {len(migrations)}"
        )
