"""The tables of the yt-dlp record (ports.ytdlp_record): how each extractor fared on each
release, the links that failed in a row, and the releases rolled back. One migration's
statements (migrations.py)."""

from __future__ import annotations

from typing import Final

YTDLP_RECORD: Final = (
    """
    CREATE TABLE ytdlp_tallies (
        extractor text NOT NULL,
        version text NOT NULL,
        successes bigint NOT NULL DEFAULT 0,
        failures bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (extractor, version)
    )
    """,
    # The links that failed since the extractor's last success on the release; after a rollback,
    # the links whose jobs are to be requeued (once).
    """
    CREATE TABLE ytdlp_failed_links (
        extractor text NOT NULL,
        version text NOT NULL,
        url text NOT NULL,
        failed_at double precision NOT NULL,
        requeued boolean NOT NULL DEFAULT false,
        PRIMARY KEY (extractor, version, url)
    )
    """,
    """
    CREATE TABLE ytdlp_rollbacks (
        version text PRIMARY KEY,
        extractor text NOT NULL,
        to_version text NOT NULL,
        at double precision NOT NULL
    )
    """,
)
