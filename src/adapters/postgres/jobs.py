"""The workers' queue on PostgreSQL: claims, fenced finishing writes, heartbeats, dead holders.

The claim itself is the `vidrelay_claim_jobs` function (queue_functions.py), called through the
batcher (claims.py); a claim skips rows other claims have locked (FOR UPDATE SKIP LOCKED), so
workers on many machines never wait for each other. Leases are computed and judged by the
database's clock (`vidrelay_now()`), never a worker's: a worker whose clock is off can neither
take a live lease nor keep an expired one. When a row is due (`available_at`) is the callers'
clock, as the port says.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final

from adapters.postgres.claims import ClaimBatcher
from adapters.postgres.database import PostgresAccess
from adapters.postgres.enqueues import EnqueueBatcher
from adapters.postgres.new_jobs import Values
from adapters.postgres.notices import WorkNotifier
from adapters.postgres.presence import PROBE_SECONDS, Presence
from adapters.sql.job_rows import FAILED_JOB_COLUMNS, JOB_COLUMNS, failed_from_row, job_from_row
from adapters.sql.json_text import dump_json
from ports.jobs import FailedJob, Guard, HandledUrlGuard, Job, Lease, NewJob, SingletonGuard
from ports.json import Payload
from ports.queue import JobQueue

FOREVER: Final = float("inf")
SINGLETON_LOCKS: Final = 0x7669_6472
"""Advisory lock class of the singleton guard: one lock per job name ("vidr")."""

_NEW_JOB = """
    INSERT INTO jobs (name, payload, max_attempts, available_at, key, owner_id, created_at, requester, turn)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, vidrelay_turn($10, $9)) RETURNING id
"""
_NEW_JOB_IF_UNHANDLED = """
    WITH mark AS (
        INSERT INTO handled_urls (chat_id, message_id, url, created_at) VALUES ($11, $12, $13, $7)
        ON CONFLICT DO NOTHING RETURNING 1
    )
    INSERT INTO jobs (name, payload, max_attempts, available_at, key, owner_id, created_at, requester, turn)
    SELECT $1, $2, $3, $4, $5, $6, $7, $8, vidrelay_turn($10, $9) WHERE EXISTS (SELECT 1 FROM mark)
    RETURNING id
"""
_NEW_JOB_IF_NONE_NAMED = """
    INSERT INTO jobs (name, payload, max_attempts, available_at, key, owner_id, created_at, requester, turn)
    SELECT $1, $2, $3, $4, $5, $6, $7, $8, vidrelay_turn($10, $9)
    WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE name = $1)
    RETURNING id
"""
# The quick lane (ports.queue): one statement of its own beside the batched claims, since a cache
# hit must not wait for a batch; suspects and a worker that holds one are left to those claims.
_CLAIM_QUICK = f"""
    UPDATE jobs SET attempts = attempts + 1, claimed_by = $1, lease_until = vidrelay_now() + $2,
        token = token + 1
    WHERE id = (
        SELECT id FROM jobs
        WHERE claimed_by IS NULL AND turn < 0 AND available_at <= $3 AND NOT suspect
            AND NOT EXISTS (SELECT 1 FROM jobs WHERE claimed_by = $1 AND suspect)
        ORDER BY turn, id LIMIT 1
        FOR UPDATE SKIP LOCKED
    )
    RETURNING {JOB_COLUMNS}
"""  # noqa: S608 - a constant column list
_TAKE_EXHAUSTED = f"""
    UPDATE jobs SET attempts = attempts + 1, claimed_by = $1, lease_until = vidrelay_now() + $2,
        token = token + 1
    WHERE claimed_by IS NULL AND attempts >= max_attempts
    RETURNING {JOB_COLUMNS}
"""  # noqa: S608 - a constant column list
_RENEW = """
    UPDATE jobs SET lease_until = vidrelay_now() + $1
    WHERE claimed_by = $2 AND (id, token) IN (SELECT * FROM unnest($3::bigint[], $4::bigint[]))
    RETURNING id, token
"""
# A row its holder holds without knowing (the claim's answer was lost), once its lease ended.
_LET_GO_OF_ORPHANS = """
    UPDATE jobs SET attempts = greatest(attempts - 1, 0), claimed_by = NULL, lease_until = NULL
    WHERE claimed_by = $1 AND lease_until <= vidrelay_now()
        AND (id, token) NOT IN (SELECT * FROM unnest($2::bigint[], $3::bigint[]))
"""
# Every finishing write acts only while its claim holds the row: same token, still held.
_RETRY_LATER = """
    UPDATE jobs SET available_at = $1, last_error = $2, claimed_by = NULL, lease_until = NULL, suspect = false
    WHERE id = $3 AND token = $4 AND claimed_by IS NOT NULL
"""
_RELEASE = """
    UPDATE jobs SET attempts = greatest(attempts - 1, 0), available_at = $1, claimed_by = NULL,
        lease_until = NULL
    WHERE id = $2 AND token = $3 AND claimed_by IS NOT NULL
"""
_UPDATE_PAYLOAD = "UPDATE jobs SET payload = $1 WHERE id = $2 AND token = $3 AND claimed_by IS NOT NULL"
_DEAD_LETTER = f"""
    WITH taken AS (
        DELETE FROM jobs WHERE id = $1 AND token = $2 AND claimed_by IS NOT NULL
        RETURNING id, name, payload, least(attempts, max_attempts) AS attempts, max_attempts, key,
            owner_id, created_at
    )
    INSERT INTO failed_jobs (job_id, name, payload, error, attempts, max_attempts, key, owner_id,
        created_at, failed_at)
    SELECT id, name, payload, $3, attempts, max_attempts, key, owner_id, created_at, $4 FROM taken
    RETURNING {FAILED_JOB_COLUMNS}
"""  # noqa: S608 - a constant column list
# A lease end is the database's time: the caller hears it on its own clock (`$2` is its now).
# While another process holds rows, its presence is probed again soon (presence.py).
_NEXT_WAKEUP = """
    SELECT least(
        (SELECT min(available_at) FROM jobs WHERE claimed_by IS NULL AND key <> ALL ($3::text[])),
        (SELECT min(lease_until) - vidrelay_now() + $2 FROM jobs
            WHERE claimed_by IS NOT NULL AND claimed_by <> $1 AND lease_until > vidrelay_now()),
        (SELECT $2 + $5 FROM vidrelay_holders AS h
            WHERE h.session <> $4 AND EXISTS (SELECT 1 FROM jobs WHERE claimed_by = h.worker) LIMIT 1)
    )
"""


def error_text(text: str) -> str:
    """An error message as PostgreSQL text can hold it: a NUL in a tool's output would otherwise
    make the finishing write itself fail, again at every retry."""
    return text.replace("\x00", "\ufffd")


class PostgresJobQueue(PostgresAccess, JobQueue):
    _claims: ClaimBatcher
    _enqueues: EnqueueBatcher
    _notifier: WorkNotifier
    _presence: Presence

    async def enqueue(self, job: NewJob, now: float, guard: Guard | None = None) -> int | None:
        values = insert_values(job, dump_json(job.payload), now, fair=self._fair)
        if isinstance(guard, SingletonGuard):
            async with self._db.transaction() as connection:
                lock = "SELECT pg_advisory_xact_lock($1, hashtext($2))"
                await connection.execute(lock, SINGLETON_LOCKS, job.name)
                job_id = await connection.fetchval(_NEW_JOB_IF_NONE_NAMED, *values)
        else:
            job_id = await self._enqueues.enqueue(values, guard)
        if job_id is not None and job.quick:
            self._notifier.announce_quick()
        elif job_id is not None:
            self._notifier.announce()
        return None if job_id is None else int(job_id)

    async def _enqueue_alone(self, values: Values, guard: HandledUrlGuard | None) -> int | None:
        """One enqueue's own statement (enqueues.py batches those submitted together)."""
        if guard is None:
            job_id = await self._db.fetchval(_NEW_JOB, *values)
        else:
            job_id = await self._db.fetchval(
                _NEW_JOB_IF_UNHANDLED, *values, guard.chat_id, guard.message_id, guard.url
            )
        return None if job_id is None else int(job_id)

    async def claim(
        self,
        worker_id: str,
        now: float,
        lease_seconds: float,
        paused_keys: Collection[str] = (),
        quick_only: bool = False,
    ) -> Job | None:
        if quick_only:
            # Registered like the batched claims' workers, so a death of this process is seen.
            await self._presence.before_claims(self._db, [worker_id])
            row = await self._db.fetchrow(_CLAIM_QUICK, worker_id, lease_seconds, now)
            return None if row is None else job_from_row(tuple(row))
        return await self._claims.claim(worker_id, now, lease_seconds, sorted(paused_keys))

    async def claim_exhausted(self, worker_id: str, now: float, lease_seconds: float) -> list[Job]:
        await self._db.fetchval("SELECT vidrelay_take_back($1, vidrelay_now())", worker_id)
        rows = await self._db.fetch(_TAKE_EXHAUSTED, worker_id, lease_seconds)
        return sorted((job_from_row(tuple(row)) for row in rows), key=lambda job: job.id)

    async def recover(self, worker_id: str) -> int:
        taken: int = await self._db.fetchval("SELECT vidrelay_take_back($1, $2)", worker_id, FOREVER)
        if taken:
            self._notifier.announce()
        return taken

    async def renew(
        self, worker_id: str, leases: Sequence[Lease], now: float, lease_seconds: float
    ) -> list[Lease]:
        ids, tokens = [lease.job_id for lease in leases], [lease.token for lease in leases]
        rows = await self._db.fetch(_RENEW, lease_seconds, worker_id, ids, tokens)
        held = {Lease(row[0], row[1]) for row in rows}
        if await self._db.execute(_LET_GO_OF_ORPHANS, worker_id, ids, tokens):
            self._notifier.announce()
        return [lease for lease in leases if lease not in held]

    async def complete(self, lease: Lease) -> bool:
        return await self._claims.complete(lease)

    async def retry_later(self, lease: Lease, available_at: float, error: str) -> bool:
        changed = await self._db.execute(
            _RETRY_LATER, available_at, error_text(error), lease.job_id, lease.token
        )
        if changed:
            self._notifier.announce()  # idle workers elsewhere learn when it comes due
        return changed == 1

    async def release(self, lease: Lease, available_at: float) -> bool:
        changed = await self._db.execute(_RELEASE, available_at, lease.job_id, lease.token)
        if changed:
            self._notifier.announce()
        return changed == 1

    async def update_payload(self, lease: Lease, payload: Payload) -> bool:
        text = dump_json(payload)
        return await self._db.execute(_UPDATE_PAYLOAD, text, lease.job_id, lease.token) == 1

    async def dead_letter(self, lease: Lease, error: str, now: float) -> FailedJob | None:
        row = await self._db.fetchrow(_DEAD_LETTER, lease.job_id, lease.token, error_text(error), now)
        return None if row is None else failed_from_row(tuple(row))

    async def next_wakeup(
        self, worker_id: str, now: float, paused_keys: Collection[str] = ()
    ) -> float | None:
        asked = (worker_id, now, sorted(paused_keys), self._presence.session, PROBE_SECONDS)
        wakeup: float | None = await self._db.fetchval(_NEXT_WAKEUP, *asked)
        return wakeup


def insert_values(job: NewJob, payload: str, now: float, *, fair: bool) -> tuple[object, ...]:
    """The parameters of _NEW_JOB and its guarded forms; available_at 0 means "now". The tenth
    is the requester whose turns count: none when the order is first-in, first-out (every row
    then takes the current turn, 0)."""
    values = (job.name, payload, job.max_attempts, job.available_at or now, job.key, job.owner_id, now)
    return (*values, job.requester, job.quick, job.requester if fair else None)
