"""Users cancelling their own work, on SQLite (ports.cancels): a mark is a row of job_cancels,
deleted with its job (a foreign key)."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.sql.job_rows import JOB_COLUMNS, job_from_row
from adapters.sql.json_text import dump_json
from adapters.sqlite.connection import Db, fetch_all, fetch_one
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
        rows = await self._read(lambda db: fetch_all(db, _JOBS_OF, (requester,)))
        return [job_from_row(row) for row in rows]

    async def cancel_job(self, job_id: int) -> Cancelled | None:
        async def work(db: Db) -> Cancelled | None:
            deleted = await fetch_one(db, _DELETE_FREE, (job_id,))
            if deleted is not None:
                return Cancelled(job_from_row(deleted), running=False)
            held = await fetch_one(db, _HELD, (job_id,))
            if held is None:
                return None
            await db.execute(_MARK, (job_id,))
            return Cancelled(job_from_row(held), running=True)

        return await self._write(work)

    async def cancel_asked(self, leases: Sequence[Lease]) -> list[Lease]:
        if not leases:
            return []
        wanted = dump_json([[lease.job_id, lease.token] for lease in leases])

        rows = await self._read(lambda db: fetch_all(db, _ASKED, (wanted,)))
        asked = {Lease(i, t) for i, t in rows}
        return [lease for lease in leases if lease in asked]
