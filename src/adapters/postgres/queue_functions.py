"""The queue's functions in the database, as the migrations that create them ship them.

A shipped migration's text never changes: a function rewritten later is a new constant here,
applied by a new migration (`CREATE OR REPLACE`).
"""

from __future__ import annotations

from typing import Final

STORE_NOW: Final = """
    CREATE FUNCTION vidrelay_now() RETURNS double precision LANGUAGE sql STABLE
    AS $$ SELECT extract(epoch FROM now()) $$
"""
"""The database's clock, in epoch seconds: what every lease is computed and judged by, so that no
worker's clock decides whose a row is. (now() is the transaction's start: one instant per claim.)"""

CLAIM_JOBS: Final = """
    CREATE FUNCTION vidrelay_claim_jobs(
        worker text, at double precision, lease_seconds double precision, wanted integer,
        paused text[], done_ids bigint[], done_tokens bigint[]
    ) RETURNS TABLE (
        done bigint, id bigint, name text, payload text, attempts integer,
        max_attempts integer, available_at double precision, created_at double precision,
        key text, owner_id bigint, claimed_by text, lease_until double precision,
        last_error text, token bigint, suspect boolean
    ) LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
        store_now double precision := vidrelay_now();
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
            GROUP BY claimed_by HAVING max(lease_until) <= store_now
        ) THEN
            PERFORM vidrelay_take_back(worker, store_now);
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
            UPDATE jobs SET attempts = attempts + 1, claimed_by = worker,
                lease_until = store_now + lease_seconds, token = token + 1
            WHERE jobs.id = ANY (picked)
            RETURNING NULL::bigint, jobs.*;
    END
    $$
"""
"""One round trip of a worker process: delete the rows of its finished jobs (fenced), take back
dead holders' rows, then claim up to `wanted` rows as `wanted` claims in a row would: FIFO,
write-ahead, a new token each; a suspect only alone, nothing beside one. `at` is the caller's
clock, for when rows are due; leases are the database's (`vidrelay_now`). Rows come back as
(done, job columns...): done is a deleted id, or NULL on a claimed row."""

HOLDERS: Final = """
    CREATE TABLE vidrelay_holders (
        worker text PRIMARY KEY,
        session text NOT NULL,
        missing_since double precision
    )
"""
"""Which store session (the application_name of all of its process's connections) each worker id
claims from, and since when none of that session's connections was seen (the database's clock)."""

TAKE_BACK_ABSENT: Final = """
    CREATE FUNCTION vidrelay_take_back_absent(me text, grace double precision)
    RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE
        store_now double precision := vidrelay_now();
        present text[] := ARRAY(
            SELECT DISTINCT application_name FROM pg_stat_activity
            WHERE datname = current_database() AND application_name <> ''
        );
        taken integer;
    BEGIN
        UPDATE vidrelay_holders SET missing_since = NULL
        WHERE missing_since IS NOT NULL AND session = ANY (present);
        UPDATE vidrelay_holders AS h SET missing_since = store_now
        WHERE h.missing_since IS NULL AND h.session <> me AND h.session <> ALL (present)
            AND EXISTS (SELECT 1 FROM jobs WHERE jobs.claimed_by = h.worker);
        WITH gone AS (
            SELECT jobs.claimed_by AS holder, count(*) AS held
            FROM jobs JOIN vidrelay_holders AS h ON h.worker = jobs.claimed_by
            WHERE h.session <> me AND h.session <> ALL (present)
                AND h.missing_since <= store_now - grace
            GROUP BY jobs.claimed_by
        ), back AS (
            UPDATE jobs SET
                attempts = CASE WHEN gone.held > 1 THEN greatest(jobs.attempts - 1, 0)
                    ELSE jobs.attempts END,
                suspect = true, claimed_by = NULL, lease_until = NULL
            FROM gone
            WHERE jobs.claimed_by = gone.holder
            RETURNING jobs.id
        )
        SELECT count(*)::integer INTO taken FROM back;
        DELETE FROM vidrelay_holders AS h
        WHERE h.session <> me AND h.session <> ALL (present)
            AND NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.claimed_by = h.worker);
        RETURN taken;
    END
    $$
"""
"""A worker process is gone when no connection of its session has been seen for `grace` seconds
(by the database's clock: a probe first notes the absence, a later one acts on it): all its rows
come back at once, suspect, refunded when it held several, as when its leases end (the crash
attribution rule). The grace covers a live process between a lost connection and its next one
(a server restart, a killed backend). A process the server still sees — alive, or cut off by a
network that went silent — keeps its rows until its leases end. Registrations of gone workers
that hold nothing are forgotten."""
