"""Users cancelling their own work, on SQLite (ports.cancels): a mark is a row of job_cancels,
deleted with its job (a foreign key)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from adapters.sql.job_rows import JOB_COLUMNS, job_from_row
from adapters.sql.json_text import dump_json
from adapters.sqlite.port_base import SqliteAccess
from ports.cancels import Cancelled, JobCancels
from ports.jobs import Job, Lease

_JOBS_OF = f"SELECT {JOB_COLUMNS} FROM jobs WHERE requester = ? ORDER BY id"  # noqa: S608 - constant columns
_DELETE_FREE = f"DELETE FROM jobs WHERE id = ? AND claimed_by IS NULL RETURNING {JOB_COLUMNS}"  # noqa: S608
_HELD = f"SELECT {JOB_COLUMNS} FROM jobs WHERE id = ? AND claimed_by IS NOT NULL"  # noqa: S608
_MARK = "INSERT INTO job_cancels (job_id) VALUES (?) ON CONFLICT DO NOTHING"
_ASKED = """
    SELECT jobs.id, jobs.token FROM job_cancels JOIN jobs ON jobs.id = job_cancels.job_id
    WHERE jobs.claimed_by IS NOT NULL AND (jobs.id, jobs.token) IN (
        SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?)
    )
"""


class SqliteJobCancels(SqliteAccess, JobCancels):
    async def jobs_of(self, requester: int) -> list[Job]:
        return await self._read(lambda c: [job_from_row(row) for row in c.execute(_JOBS_OF, (requester,))])

    async def cancel_job(self, job_id: int) -> Cancelled | None:
        def work(c: sqlite3.Connection) -> Cancelled | None:
            deleted = c.execute(_DELETE_FREE, (job_id,)).fetchall()
            if deleted:
                return Cancelled(job_from_row(deleted[0]), running=False)
            held = c.execute(_HELD, (job_id,)).fetchone()
            if held is None:
                return None
            c.execute(_MARK, (job_id,))
            return Cancelled(job_from_row(held), running=True)

        return await self._write(work)

    async def cancel_asked(self, leases: Sequence[Lease]) -> list[Lease]:
        if not leases:
            return []
        wanted = dump_json([[lease.job_id, lease.token] for lease in leases])

        def work(c: sqlite3.Connection) -> list[Lease]:
            asked = {Lease(i, t) for i, t in c.execute(_ASKED, (wanted,))}
            return [lease for lease in leases if lease in asked]

        return await self._read(work)
