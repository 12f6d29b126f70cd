"""The PostgreSQL schema's migrations, oldest first: append-only (schema.py applies them).

The tables mean what the SQLite store's mean (times are the Clock port's epoch seconds, JSON
values are the same text), so the two adapters read side by side. Never edit or reorder a
shipped migration: append a new one.
"""

from __future__ import annotations

from dataclasses import dataclass

from adapters.postgres.fair_order import FAIR_ORDER
from adapters.postgres.queue_functions import CLAIM_JOBS, HOLDERS, STORE_NOW, TAKE_BACK_ABSENT
from adapters.postgres.ytdlp_tables import YTDLP_RECORD


@dataclass(frozen=True, slots=True)
class Migration:
    name: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        "jobs and dead letters",
        (
            # The column order is the one every job row is read in (adapters' codec).
            """
            CREATE TABLE jobs (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                name text NOT NULL,
                payload text NOT NULL,
                attempts integer NOT NULL DEFAULT 0,
                max_attempts integer NOT NULL,
                available_at double precision NOT NULL,
                created_at double precision NOT NULL,
                key text NOT NULL DEFAULT '',
                owner_id bigint,
                claimed_by text,
                lease_until double precision,
                last_error text,
                token bigint NOT NULL DEFAULT 0,
                suspect boolean NOT NULL DEFAULT false
            )
            """,
            # Claims walk the free rows in id order (FIFO) and stop at the first due ones; the
            # held rows are few (one per running job) and say which holders are gone.
            "CREATE INDEX jobs_free ON jobs (id) WHERE claimed_by IS NULL",
            "CREATE INDEX jobs_free_due ON jobs (available_at) WHERE claimed_by IS NULL",
            "CREATE INDEX jobs_held ON jobs (claimed_by, lease_until) WHERE claimed_by IS NOT NULL",
            "CREATE INDEX jobs_name ON jobs (name)",
            "CREATE INDEX jobs_owner ON jobs (owner_id) WHERE owner_id IS NOT NULL",
            """
            CREATE TABLE failed_jobs (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                job_id bigint NOT NULL,
                name text NOT NULL,
                payload text NOT NULL,
                error text NOT NULL,
                attempts integer NOT NULL,
                max_attempts integer NOT NULL,
                created_at double precision NOT NULL,
                failed_at double precision NOT NULL,
                key text NOT NULL DEFAULT '',
                owner_id bigint
            )
            """,
        ),
    ),
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
            # What every worker shares: the video's file_id answers it on any machine.
            """
            CREATE TABLE blobs (
                key text PRIMARY KEY,
                duration double precision,
                width integer,
                height integer,
                file_id text,
                file_unique_id text,
                created_at double precision NOT NULL,
                last_used double precision NOT NULL
            )
            """,
            # The bytes are a cache local to each worker (node): a row per worker that has them.
            """
            CREATE TABLE blob_bytes (
                node text NOT NULL,
                key text NOT NULL REFERENCES blobs (key) ON DELETE CASCADE,
                file_name text NOT NULL,
                size bigint,
                created_at double precision NOT NULL,
                last_used double precision NOT NULL,
                PRIMARY KEY (node, key)
            )
            """,
            "CREATE INDEX blob_bytes_key ON blob_bytes (key)",
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
    Migration(
        "install secrets",
        (
            """
            CREATE TABLE install_secrets (
                name text PRIMARY KEY,
                value bytea NOT NULL,
                created_at double precision NOT NULL
            )
            """,
        ),
    ),
    Migration(
        "chat settings",
        (
            """
            CREATE TABLE chat_settings (
                chat_id bigint PRIMARY KEY,
                max_height integer,
                audio_only boolean NOT NULL,
                ask_long_videos boolean NOT NULL,
                ask_longer_than_seconds integer,
                updated_at double precision NOT NULL
            )
            """,
        ),
    ),
    Migration(
        "claims: dead holders taken back, suspects alone, settle and claim in one call",
        (
            # A holder none of whose leases still runs is gone: all its rows come back at once,
            # suspect, refunded when it held several (none of them can be blamed alone). The
            # lease test is repeated per row so that a row its holder renewed meanwhile stays.
            """
            CREATE FUNCTION vidrelay_take_back(worker text, dead_before double precision)
            RETURNS integer LANGUAGE sql AS $$
                WITH gone AS (
                    SELECT claimed_by AS holder, count(*) AS held FROM jobs
                    WHERE claimed_by IS NOT NULL AND claimed_by <> worker
                    GROUP BY claimed_by HAVING max(lease_until) <= dead_before
                ), taken AS (
                    UPDATE jobs SET
                        attempts = CASE WHEN gone.held > 1 THEN greatest(jobs.attempts - 1, 0)
                            ELSE jobs.attempts END,
                        suspect = true, claimed_by = NULL, lease_until = NULL
                    FROM gone
                    WHERE jobs.claimed_by = gone.holder AND jobs.lease_until <= dead_before
                    RETURNING jobs.id
                )
                SELECT count(*)::integer FROM taken
            $$
            """,
            # One round trip of a worker process: delete the rows of its finished jobs (fenced),
            # take back dead holders' rows, then claim up to `wanted` rows as `wanted` claims in a
            # row would: FIFO, write-ahead, a new token each; a suspect only alone, nothing beside
            # one. Rows come back as (done, job columns...): done is a deleted id, or NULL on a
            # claimed row.
            """
            CREATE FUNCTION vidrelay_claim(
                worker text, at double precision, until double precision, wanted integer,
                paused text[], done_ids bigint[], done_tokens bigint[]
            ) RETURNS TABLE (
                done bigint, id bigint, name text, payload text, attempts integer,
                max_attempts integer, available_at double precision, created_at double precision,
                key text, owner_id bigint, claimed_by text, lease_until double precision,
                last_error text, token bigint, suspect boolean
            ) LANGUAGE plpgsql AS $$
            #variable_conflict use_column
            DECLARE
                held integer;
                holds_suspect boolean;
                picked bigint[] := '{}';
                candidate record;
            BEGIN
                RETURN QUERY
                    DELETE FROM jobs
                    WHERE (jobs.id, jobs.token) IN (SELECT * FROM unnest(done_ids, done_tokens))
                        AND jobs.claimed_by IS NOT NULL
                    RETURNING jobs.id, NULL::bigint, NULL::text, NULL::text, NULL::integer,
                        NULL::integer, NULL::double precision, NULL::double precision, NULL::text,
                        NULL::bigint, NULL::text, NULL::double precision, NULL::text, NULL::bigint,
                        NULL::boolean;
                IF wanted <= 0 THEN
                    RETURN;
                END IF;
                IF EXISTS (
                    SELECT 1 FROM jobs WHERE claimed_by IS NOT NULL AND claimed_by <> worker
                    GROUP BY claimed_by HAVING max(lease_until) <= at
                ) THEN
                    PERFORM vidrelay_take_back(worker, at);
                END IF;
                SELECT count(*), coalesce(bool_or(suspect), false) INTO held, holds_suspect
                FROM jobs WHERE claimed_by = worker;
                IF holds_suspect THEN
                    RETURN;
                END IF;
                FOR candidate IN
                    SELECT jobs.id, jobs.suspect FROM jobs
                    WHERE claimed_by IS NULL AND available_at <= at AND key <> ALL (paused)
                    ORDER BY jobs.id LIMIT wanted
                    FOR UPDATE SKIP LOCKED
                LOOP
                    IF candidate.suspect THEN
                        IF held = 0 THEN
                            picked := ARRAY[candidate.id];
                        END IF;
                        EXIT;
                    END IF;
                    picked := picked || candidate.id;
                    held := held + 1;
                END LOOP;
                RETURN QUERY
                    UPDATE jobs SET attempts = attempts + 1, claimed_by = worker, lease_until = until,
                        token = token + 1
                    WHERE jobs.id = ANY (picked)
                    RETURNING NULL::bigint, jobs.*;
            END
            $$
            """,
        ),
    ),
    Migration(
        "ingest lock: its holder's last sign of life",
        (
            # One row: who holds the ingest lock, and when its probe last proved it (the
            # database's clock). A new holder waits until the last one must have stopped polling.
            """
            CREATE TABLE vidrelay_ingest (
                one boolean PRIMARY KEY DEFAULT true CHECK (one),
                holder text NOT NULL,
                seen_at double precision NOT NULL
            )
            """,
        ),
    ),
    Migration(
        "leases by the database's clock",
        (
            STORE_NOW,
            CLAIM_JOBS,
        ),
    ),
    Migration(
        "dead workers found by their sessions",
        (HOLDERS, "CREATE INDEX vidrelay_holders_session ON vidrelay_holders (session)", TAKE_BACK_ABSENT),
    ),
    Migration(
        "update inbox",
        (
            # An update is kept here before Telegram hears it arrived; a handled one keeps its row
            # (handled_at) until swept, so a batch handed out again is not handled twice.
            """
            CREATE TABLE inbox (
                update_id bigint PRIMARY KEY,
                lane text NOT NULL,
                body text NOT NULL,
                received_at double precision NOT NULL,
                handled_at double precision
            )
            """,
            "CREATE INDEX inbox_waiting ON inbox (update_id) WHERE handled_at IS NULL",
            "CREATE INDEX inbox_handled_at ON inbox (handled_at) WHERE handled_at IS NOT NULL",
        ),
    ),
    Migration("fair order", FAIR_ORDER),
    Migration(
        "per-user link counts",
        (
            "CREATE TABLE user_links (user_id bigint NOT NULL, at double precision NOT NULL)",
            "CREATE INDEX user_links_by_user ON user_links (user_id, at)",
        ),
    ),
    Migration(
        "cancel marks",
        (
            # A user cancelled a running job: its holder's heartbeat reads this and stops it.
            "CREATE TABLE job_cancels (job_id bigint PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE)",
        ),
    ),
    Migration("yt-dlp record", YTDLP_RECORD),
    Migration(
        "a chat's language",
        # NULL: automatic (the user's Telegram app's language in a private chat, English in a group).
        ("ALTER TABLE chat_settings ADD COLUMN language text",),
    ),
    Migration(
        "send as file",
        # A chat's videos come as documents (the downloaded bytes, no player).
        ("ALTER TABLE chat_settings ADD COLUMN as_file boolean NOT NULL DEFAULT false",),
    ),
)
