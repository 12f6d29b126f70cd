"""The workers' queue on SQLite: claims, fenced finishing writes, heartbeats, dead holders.

Enqueues, claims and completions are kinds that a group commit runs for all of its jobs at once
(enqueues.py, claims.py, completions.py); the rest are operations that run alone, one or two
statements each. Leases are the host's clock read in SQL (store_clock.py); when a row is due is
the callers' `now`, as the port says.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from adapters.sql.job_rows import FAILED_JOB_COLUMNS, JOB_COLUMNS, failed_from_row, job_from_row
from adapters.sql.json_text import dump_json
from adapters.sqlite.claims import CLAIMS, FOREVER, FREE, FREE_UNPAUSED, QUICK, Claim, take_back
from adapters.sqlite.completions import COMPLETIONS
from adapters.sqlite.connection import Db, fetch_all, fetch_one
from adapters.sqlite.enqueues import ENQUEUES, Enqueue, insert_job
from adapters.sqlite.port_base import SqliteAccess
from adapters.sqlite.store_clock import store_now
from ports.jobs import FailedJob, Guard, HandledUrlGuard, Job, Lease, NewJob, SingletonGuard
from ports.json import Payload
from ports.queue import JobQueue

_SAME_NAME_EXISTS = "SELECT 1 FROM jobs WHERE name = ? LIMIT 1"
_TAKE_EXHAUSTED = f"""
    UPDATE jobs SET attempts = attempts + 1, claimed_by = ?, lease_until = ?, token = token + 1
    WHERE claimed_by IS NULL AND attempts >= max_attempts
    RETURNING {JOB_COLUMNS}
"""  # noqa: S608 - a constant column list
_RENEW = """
    UPDATE jobs SET lease_until = ?
    WHERE claimed_by = ? AND (id, token) IN (
        SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?)
    )
    RETURNING id, token
"""
# A row its holder holds without knowing (the claim's answer was lost), once its lease ended.
_LET_GO_OF_ORPHANS = """
    UPDATE jobs SET attempts = max(attempts - 1, 0), claimed_by = NULL, lease_until = NULL
    WHERE claimed_by = ? AND lease_until <= ? AND (id, token) NOT IN (
        SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?)
    )
"""
# Every finishing write acts only while its claim holds the row: same token, still held.
_RETRY_LATER = """
    UPDATE jobs SET available_at = ?, last_error = ?, claimed_by = NULL, lease_until = NULL, suspect = 0
    WHERE id = ? AND token = ? AND claimed_by IS NOT NULL
"""
_RELEASE = """
    UPDATE jobs SET attempts = max(attempts - 1, 0), available_at = ?, claimed_by = NULL, lease_until = NULL
    WHERE id = ? AND token = ? AND claimed_by IS NOT NULL
"""
_UPDATE_PAYLOAD = "UPDATE jobs SET payload = ? WHERE id = ? AND token = ? AND claimed_by IS NOT NULL"
_TAKE_FOR_DEAD_LETTER = """
    DELETE FROM jobs WHERE id = ? AND token = ? AND claimed_by IS NOT NULL
    RETURNING name, payload, min(attempts, max_attempts), max_attempts, key, owner_id, created_at
"""
_INSERT_FAILED = f"""
    INSERT INTO failed_jobs (job_id, name, payload, error, attempts, max_attempts, key, owner_id,
        created_at, failed_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    RETURNING {FAILED_JOB_COLUMNS}
"""  # noqa: S608 - a constant column list
_NEXT_FREE = "SELECT available_at FROM jobs WHERE claimed_by IS NULL ORDER BY available_at LIMIT 1"
_NEXT_FREE_UNPAUSED = """
    SELECT available_at FROM jobs
    WHERE claimed_by IS NULL AND key NOT IN (SELECT value FROM json_each(?))
    ORDER BY available_at LIMIT 1
"""
_NEXT_LEASE_END = """
    SELECT lease_until FROM jobs WHERE lease_until > ? AND claimed_by <> ?
    ORDER BY lease_until LIMIT 1
"""  # a lease end is the store's time: the caller hears it on its own clock


class SqliteJobQueue(SqliteAccess, JobQueue):
    async def enqueue(self, job: NewJob, now: float, guard: Guard | None = None) -> int | None:
        payload = dump_json(job.payload)
        if isinstance(guard, SingletonGuard):
            request = Enqueue(job, payload, now, None, self._fair)

            async def alone(db: Db) -> int | None:
                if await fetch_one(db, _SAME_NAME_EXISTS, (job.name,)):
                    return None
                return await insert_job(db, request)

            return await self._write(alone)
        handled = guard if isinstance(guard, HandledUrlGuard) else None
        job_id: int | None = await self._together(ENQUEUES, Enqueue(job, payload, now, handled, self._fair))
        return job_id

    async def claim(
        self,
        worker_id: str,
        now: float,
        lease_seconds: float,
        paused_keys: Collection[str] = (),
        quick_only: bool = False,
    ) -> Job | None:
        request = Claim(worker_id, now, lease_seconds, FREE)
        if quick_only:
            request = Claim(worker_id, now, lease_seconds, QUICK)
        elif paused_keys:
            request = Claim(worker_id, now, lease_seconds, FREE_UNPAUSED, (dump_json(sorted(paused_keys)),))
        job: Job | None = await self._together(CLAIMS, request)
        return job

    async def claim_exhausted(self, worker_id: str, now: float, lease_seconds: float) -> list[Job]:
        async def work(db: Db) -> list[Job]:
            at = await store_now(db)
            await take_back(db, worker_id, dead_before=at)
            rows = await fetch_all(db, _TAKE_EXHAUSTED, (worker_id, at + lease_seconds))
            return sorted((job_from_row(row) for row in rows), key=lambda job: job.id)

        return await self._write(work)

    async def recover(self, worker_id: str) -> int:
        return await self._write(lambda db: take_back(db, worker_id, dead_before=FOREVER))

    async def renew(
        self, worker_id: str, leases: Sequence[Lease], now: float, lease_seconds: float
    ) -> list[Lease]:
        wanted = dump_json([[lease.job_id, lease.token] for lease in leases])

        async def work(db: Db) -> list[Lease]:
            # Even with nothing to renew this takes the write lock: the heartbeat doubles as the
            # probe that tells /healthz whether the store takes writes.
            at = await store_now(db)
            rows = await fetch_all(db, _RENEW, (at + lease_seconds, worker_id, wanted))
            held = {Lease(i, t) for i, t in rows}
            await db.execute(_LET_GO_OF_ORPHANS, (worker_id, at, wanted))
            return [lease for lease in leases if lease not in held]

        return await self._write(work)

    async def complete(self, lease: Lease) -> bool:
        landed: bool = await self._together(COMPLETIONS, lease)
        return landed

    async def retry_later(self, lease: Lease, available_at: float, error: str) -> bool:
        return await self._changes_one(_RETRY_LATER, (available_at, error, lease.job_id, lease.token))

    async def release(self, lease: Lease, available_at: float) -> bool:
        return await self._changes_one(_RELEASE, (available_at, lease.job_id, lease.token))

    async def update_payload(self, lease: Lease, payload: Payload) -> bool:
        return await self._changes_one(_UPDATE_PAYLOAD, (dump_json(payload), lease.job_id, lease.token))

    async def _changes_one(self, sql: str, params: tuple[object, ...]) -> bool:
        async def work(db: Db) -> bool:
            return (await db.execute(sql, params)).rowcount == 1

        return await self._write(work)

    async def dead_letter(self, lease: Lease, error: str, now: float) -> FailedJob | None:
        async def work(db: Db) -> FailedJob | None:
            taken = await fetch_one(db, _TAKE_FOR_DEAD_LETTER, (lease.job_id, lease.token))
            if taken is None:
                return None
            name, payload, attempts, max_attempts, key, owner, created = taken
            values = (lease.job_id, name, payload, error, attempts, max_attempts, key, owner, created, now)
            return failed_from_row(tuple(await fetch_one(db, _INSERT_FAILED, values)))

        return await self._write(work)

    async def next_wakeup(
        self, worker_id: str, now: float, paused_keys: Collection[str] = ()
    ) -> float | None:
        free: tuple[str, tuple[object, ...]] = (_NEXT_FREE, ())
        if paused_keys:
            free = (_NEXT_FREE_UNPAUSED, (dump_json(sorted(paused_keys)),))

        async def work(db: Db) -> float | None:
            at = await store_now(db)
            due = [row[0] for row in await fetch_all(db, *free)]
            ends = [row[0] - at + now for row in await fetch_all(db, _NEXT_LEASE_END, (at, worker_id))]
            return min(due + ends, default=None)

        return await self._read(work)
