"""The workers' queue on SQLite: claims, fenced finishing writes, heartbeats, dead holders.

Each method is one function run by the group-commit writer inside its own SAVEPOINT, so it is
atomic on its own and never interleaves with another. Leases are the host's clock read in SQL
(store_clock.py); when a row is due is the callers' `now`, as the port says.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence

from adapters.sql.job_rows import FAILED_JOB_COLUMNS, JOB_COLUMNS, failed_from_row, job_from_row
from adapters.sql.json_text import dump_json
from adapters.sqlite.port_base import SqliteAccess
from adapters.sqlite.store_clock import store_now
from ports.jobs import FailedJob, Guard, HandledUrlGuard, Job, Lease, NewJob, SingletonGuard
from ports.json import Payload
from ports.queue import JobQueue

FOREVER = float("inf")

_INSERT_JOB = """
    INSERT INTO jobs (name, payload, attempts, max_attempts, available_at, key, owner_id, created_at,
        requester, turn)
    VALUES (?1, ?2, 0, ?3, ?4, ?5, ?6, ?7, ?8, CASE WHEN ?9 THEN -1 ELSE max(
        0,
        coalesce((SELECT max(turn) + 1 FROM jobs WHERE requester = ?10), 0),
        coalesce(
            (SELECT max(turn) FROM jobs WHERE claimed_by IS NOT NULL),
            (SELECT min(turn) FROM jobs WHERE claimed_by IS NULL),
            0
        )
    ) END)
"""
"""The row's turn (ports.queue's fair order), each part an index lookup: the requester's highest
queued turn (jobs_requester), the held rows (few: one per running job), the lowest free turn;
-1 for a quick row. ?10 is the requester whose turns count: none in first-in, first-out order,
where every row then takes the current turn, 0."""
_SAME_NAME_EXISTS = "SELECT 1 FROM jobs WHERE name = ? LIMIT 1"
_MARK_HANDLED = """
    INSERT INTO handled_urls (chat_id, message_id, url, created_at) VALUES (?, ?, ?, ?)
    ON CONFLICT DO NOTHING
"""
# A holder none of whose leases is still running is gone: all its rows come back at once, suspect,
# and with their attempts refunded when it held several (none of them can be blamed alone).
_TAKE_BACK = """
    WITH gone(holder, held) AS (
        SELECT claimed_by, count(*) FROM jobs
        WHERE claimed_by IS NOT NULL AND claimed_by <> :me
        GROUP BY claimed_by HAVING max(lease_until) <= :dead_before
    )
    UPDATE jobs SET
        attempts = CASE WHEN (SELECT held FROM gone WHERE holder = jobs.claimed_by) > 1
            THEN max(attempts - 1, 0) ELSE attempts END,
        suspect = 1, claimed_by = NULL, lease_until = NULL
    WHERE claimed_by IN (SELECT holder FROM gone)
    RETURNING id
"""
# The take-back only has work once some lease ended: this probe of the lease index is what the
# hot path pays instead of the take-back's GROUP BY.
_A_LEASE_ENDED = "SELECT 1 FROM jobs WHERE lease_until <= ? LIMIT 1"
_HELD_BY_ME = "SELECT count(*), coalesce(max(suspect), 0) FROM jobs WHERE claimed_by = ?"
# The claim walks the free rows in the fair order (jobs_fair: turn, id) and stops at the first due
# one: cheap however long the queue. Left free to use the available_at index, the planner sorts
# every due row instead (milliseconds per claim at 20k queued rows); INDEXED BY pins the plan, a
# test checks it.
_FIRST_FREE = """
    SELECT id, suspect FROM jobs INDEXED BY jobs_fair
    WHERE claimed_by IS NULL AND available_at <= ?
    ORDER BY turn, id LIMIT 1
"""
_FIRST_FREE_UNPAUSED = """
    SELECT id, suspect FROM jobs INDEXED BY jobs_fair
    WHERE claimed_by IS NULL AND available_at <= ? AND key NOT IN (SELECT value FROM json_each(?))
    ORDER BY turn, id LIMIT 1
"""
# A cache hit touches no site: the quick lane ignores the paused keys, and leaves suspects to the
# claims that know to run them alone.
_FIRST_QUICK = """
    SELECT id, suspect FROM jobs INDEXED BY jobs_fair
    WHERE claimed_by IS NULL AND turn < 0 AND available_at <= ? AND NOT suspect
    ORDER BY turn, id LIMIT 1
"""
_TAKE = f"""
    UPDATE jobs SET attempts = attempts + 1, claimed_by = ?, lease_until = ?, token = token + 1
    WHERE id = ?
    RETURNING {JOB_COLUMNS}
"""  # noqa: S608 - a constant column list
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
_COMPLETE = "DELETE FROM jobs WHERE id = ? AND token = ? AND claimed_by IS NOT NULL"
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

        def work(c: sqlite3.Connection) -> int | None:
            match guard:
                case HandledUrlGuard(chat_id=chat, message_id=message, url=url):
                    if c.execute(_MARK_HANDLED, (chat, message, url, now)).rowcount == 0:
                        return None
                case SingletonGuard():
                    if c.execute(_SAME_NAME_EXISTS, (job.name,)).fetchone():
                        return None
            return insert_job(c, job, payload, now, fair=self._fair)

        return await self._write(work)

    async def claim(
        self,
        worker_id: str,
        now: float,
        lease_seconds: float,
        paused_keys: Collection[str] = (),
        quick_only: bool = False,
    ) -> Job | None:
        first: tuple[str, tuple[object, ...]] = (_FIRST_FREE, (now,))
        if quick_only:
            first = (_FIRST_QUICK, (now,))
        elif paused_keys:
            first = (_FIRST_FREE_UNPAUSED, (now, dump_json(sorted(paused_keys))))

        def work(c: sqlite3.Connection) -> Job | None:
            at = store_now(c)
            _take_back(c, worker_id, dead_before=at)
            held, holds_suspect = c.execute(_HELD_BY_ME, (worker_id,)).fetchone()
            if holds_suspect:
                return None
            row = c.execute(*first).fetchone()
            if row is None or (row[1] and held):
                return None
            return job_from_row(c.execute(_TAKE, (worker_id, at + lease_seconds, row[0])).fetchone())

        return await self._write(work)

    async def claim_exhausted(self, worker_id: str, now: float, lease_seconds: float) -> list[Job]:
        def work(c: sqlite3.Connection) -> list[Job]:
            at = store_now(c)
            _take_back(c, worker_id, dead_before=at)
            rows = c.execute(_TAKE_EXHAUSTED, (worker_id, at + lease_seconds)).fetchall()
            return sorted((job_from_row(row) for row in rows), key=lambda job: job.id)

        return await self._write(work)

    async def recover(self, worker_id: str) -> int:
        return await self._write(lambda c: _take_back(c, worker_id, dead_before=FOREVER))

    async def renew(
        self, worker_id: str, leases: Sequence[Lease], now: float, lease_seconds: float
    ) -> list[Lease]:
        wanted = dump_json([[lease.job_id, lease.token] for lease in leases])

        def work(c: sqlite3.Connection) -> list[Lease]:
            # Even with nothing to renew this takes the write lock: the heartbeat doubles as the
            # probe that tells /healthz whether the store takes writes.
            at = store_now(c)
            held = {Lease(i, t) for i, t in c.execute(_RENEW, (at + lease_seconds, worker_id, wanted))}
            c.execute(_LET_GO_OF_ORPHANS, (worker_id, at, wanted))
            return [lease for lease in leases if lease not in held]

        return await self._write(work)

    async def complete(self, lease: Lease) -> bool:
        return await self._write(lambda c: c.execute(_COMPLETE, (lease.job_id, lease.token)).rowcount == 1)

    async def retry_later(self, lease: Lease, available_at: float, error: str) -> bool:
        params = (available_at, error, lease.job_id, lease.token)
        return await self._write(lambda c: c.execute(_RETRY_LATER, params).rowcount == 1)

    async def release(self, lease: Lease, available_at: float) -> bool:
        params = (available_at, lease.job_id, lease.token)
        return await self._write(lambda c: c.execute(_RELEASE, params).rowcount == 1)

    async def update_payload(self, lease: Lease, payload: Payload) -> bool:
        params = (dump_json(payload), lease.job_id, lease.token)
        return await self._write(lambda c: c.execute(_UPDATE_PAYLOAD, params).rowcount == 1)

    async def dead_letter(self, lease: Lease, error: str, now: float) -> FailedJob | None:
        def work(c: sqlite3.Connection) -> FailedJob | None:
            taken = c.execute(_TAKE_FOR_DEAD_LETTER, (lease.job_id, lease.token)).fetchall()
            if not taken:
                return None
            name, payload, attempts, max_attempts, key, owner, created = taken[0]
            values = (lease.job_id, name, payload, error, attempts, max_attempts, key, owner, created, now)
            return failed_from_row(c.execute(_INSERT_FAILED, values).fetchall()[0])

        return await self._write(work)

    async def next_wakeup(
        self, worker_id: str, now: float, paused_keys: Collection[str] = ()
    ) -> float | None:
        free: tuple[str, tuple[object, ...]] = (_NEXT_FREE, ())
        if paused_keys:
            free = (_NEXT_FREE_UNPAUSED, (dump_json(sorted(paused_keys)),))

        def work(c: sqlite3.Connection) -> float | None:
            at = store_now(c)
            due = [row[0] for row in c.execute(*free)]
            ends = [row[0] - at + now for row in c.execute(_NEXT_LEASE_END, (at, worker_id))]
            return min(due + ends, default=None)

        return await self._read(work)


def _take_back(c: sqlite3.Connection, worker_id: str, dead_before: float) -> int:
    if dead_before != FOREVER and c.execute(_A_LEASE_ENDED, (dead_before,)).fetchone() is None:
        return 0
    # Counted from RETURNING: the driver reports no rowcount for a statement that starts with WITH.
    return len(c.execute(_TAKE_BACK, {"me": worker_id, "dead_before": dead_before}).fetchall())


def insert_job(c: sqlite3.Connection, job: NewJob, payload: str, now: float, *, fair: bool) -> int:
    """Insert `job` with its payload already encoded; available_at 0 means "now". `fair` False:
    first-in, first-out instead of the fair order."""
    available_at = job.available_at or now
    values = (job.name, payload, job.max_attempts, available_at, job.key, job.owner_id, now)
    turns = (job.requester, job.quick, job.requester if fair else None)
    job_id = c.execute(_INSERT_JOB, (*values, *turns)).lastrowid
    if job_id is None:  # pragma: no cover - an INSERT into a rowid table always has one
        raise sqlite3.InternalError("INSERT INTO jobs returned no rowid")
    return job_id
