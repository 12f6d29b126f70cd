"""The statement that inserts a batch of jobs (enqueues.py).

`input` numbers the batch's rows and takes their ids in that order (PostgreSQL evaluates a
volatile target list after ORDER BY); `mark` remembers each guarded link once, for its first row;
`kept` is every row that becomes a job. One requester's rows take consecutive turns, as inserting
them one by one would give them: vidrelay_turn sees none of this statement's own rows.
"""

from __future__ import annotations

from typing import Final

Values = tuple[object, ...]
"""One job's parameters, in the order of jobs.insert_values."""

MAX_BATCH: Final = 500
"""Rows per statement: 13 arrays of them, far below any limit of the protocol or the server."""

NEW_JOBS: Final = """
    WITH input AS MATERIALIZED (
        SELECT nextval(pg_get_serial_sequence('jobs', 'id')) AS id, t.*
        FROM unnest($1::text[], $2::text[], $3::integer[], $4::double precision[], $5::text[],
                $6::bigint[], $7::double precision[], $8::bigint[], $9::boolean[], $10::bigint[],
                $11::bigint[], $12::bigint[], $13::text[])
            WITH ORDINALITY AS t(name, payload, max_attempts, available_at, key, owner_id,
                created_at, requester, quick, turn_of, chat_id, message_id, url, ord)
        ORDER BY t.ord
    ), mark AS (
        INSERT INTO handled_urls (chat_id, message_id, url, created_at)
        SELECT DISTINCT ON (chat_id, message_id, url) chat_id, message_id, url, created_at
        FROM input WHERE url IS NOT NULL
        ORDER BY chat_id, message_id, url, ord
        ON CONFLICT DO NOTHING
        RETURNING chat_id, message_id, url
    ), kept AS (
        SELECT input.* FROM input
        WHERE input.url IS NULL OR (
            EXISTS (SELECT 1 FROM mark
                WHERE (mark.chat_id, mark.message_id, mark.url)
                    = (input.chat_id, input.message_id, input.url))
            AND NOT EXISTS (SELECT 1 FROM input AS earlier
                WHERE (earlier.chat_id, earlier.message_id, earlier.url)
                    = (input.chat_id, input.message_id, input.url)
                    AND earlier.ord < input.ord)
        )
    ), added AS (
        INSERT INTO jobs (id, name, payload, max_attempts, available_at, key, owner_id, created_at,
            requester, turn)
        OVERRIDING SYSTEM VALUE
        SELECT id, name, payload, max_attempts, available_at, key, owner_id, created_at, requester,
            vidrelay_turn(turn_of, quick) + CASE WHEN quick OR turn_of IS NULL THEN 0
                ELSE row_number() OVER (PARTITION BY turn_of, quick ORDER BY ord) - 1 END
        FROM kept
    )
    SELECT kept.id FROM input LEFT JOIN kept USING (ord) ORDER BY input.ord
"""
