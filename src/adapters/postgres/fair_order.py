"""The fair order on PostgreSQL (ports.queue): each row's turn, and claims that take the lowest.

Its migration's statements: the two columns and their indexes, the turn as one SQL function every
INSERT INTO jobs names, and the claim function again (`vidrelay_claim_jobs`, queue_functions.py)
ordered by (turn, id) instead of id, its rows with the two new columns.
"""

from __future__ import annotations

from typing import Final

CLAIM_JOBS_FAIRLY: Final = """
    CREATE FUNCTION vidrelay_claim_jobs(
        worker text, at double precision, lease_seconds double precision, wanted integer,
        paused text[], done_ids bigint[], done_tokens bigint[]
    ) RETURNS TABLE (
        done bigint, id bigint, name text, payload text, attempts integer,
        max_attempts integer, available_at double precision, created_at double precision,
        key text, owner_id bigint, claimed_by text, lease_until double precision,
        last_error text, token bigint, suspect boolean, requester bigint, turn bigint
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
                NULL::boolean, NULL::bigint, NULL::bigint;
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
            ORDER BY jobs.turn, jobs.id LIMIT wanted
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
"""vidrelay_claim_jobs as before (settle, take back, claim as `wanted` claims in a row would, a
suspect only alone, leases by the database's clock), in the fair order, with the two new columns
in its rows."""

FAIR_ORDER: Final = (
    "ALTER TABLE jobs ADD COLUMN requester bigint",
    "ALTER TABLE jobs ADD COLUMN turn bigint NOT NULL DEFAULT 0",
    # The claim walks this in order and skips what others locked; its first entry is the lowest
    # free turn.
    "CREATE INDEX jobs_fair ON jobs (turn, id) WHERE claimed_by IS NULL",
    "CREATE INDEX jobs_requester ON jobs (requester, turn) WHERE requester IS NOT NULL",
    # After the requester's queued rows, never before the current turn: the highest held turn
    # (what runs now; held rows are one per running job), else the lowest free one; -1 for a quick
    # row, before them all. Index lookups only. Two enqueues racing may share a turn: id order
    # keeps them first-in, first-out.
    """
    CREATE FUNCTION vidrelay_turn(who bigint, quick boolean) RETURNS bigint LANGUAGE sql STABLE AS $$
        SELECT CASE WHEN quick THEN -1 ELSE greatest(
            0,
            coalesce((SELECT max(turn) + 1 FROM jobs WHERE requester = who), 0),
            coalesce(
                (SELECT max(turn) FROM jobs WHERE claimed_by IS NOT NULL),
                (SELECT min(turn) FROM jobs WHERE claimed_by IS NULL),
                0
            )
        ) END
    $$
    """,
    """
    DROP FUNCTION vidrelay_claim_jobs(
        text, double precision, double precision, integer, text[], bigint[], bigint[]
    )
    """,
    CLAIM_JOBS_FAIRLY,
)
