"""Users cancelling their own work, on PostgreSQL (ports.cancels): a mark is a row of job_cancels,
deleted with its job (a foreign key), and announced to every process (NOTIFY) so the holder's
heartbeat reads it at once."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.postgres.database import PostgresAccess
from adapters.postgres.notices import WorkNotifier
from adapters.sql.job_rows import JOB_COLUMNS, job_from_row
from ports.cancels import Cancelled, JobCancels
from ports.jobs import Job, Lease

_JOBS_OF = f"SELECT {JOB_COLUMNS} FROM jobs WHERE requester = $1 ORDER BY id"  # noqa: S608 - constant columns
# Locked first, so a claim or a release racing this waits: free means deleted, held means marked.
_TARGET = f"SELECT {JOB_COLUMNS} FROM jobs WHERE id = $1 FOR UPDATE"  # noqa: S608 - constant columns
_DELETE = "DELETE FROM jobs WHERE id = $1"
_MARK = "INSERT INTO job_cancels (job_id) VALUES ($1) ON CONFLICT DO NOTHING"
_ASKED = """
    SELECT jobs.id, jobs.token FROM job_cancels JOIN jobs ON jobs.id = job_cancels.job_id
    WHERE jobs.claimed_by IS NOT NULL
        AND (jobs.id, jobs.token) IN (SELECT * FROM unnest($1::bigint[], $2::bigint[]))
"""


class PostgresJobCancels(PostgresAccess, JobCancels):
    _notifier: WorkNotifier

    async def jobs_of(self, requester: int) -> list[Job]:
        return [job_from_row(tuple(row)) for row in await self._db.fetch(_JOBS_OF, requester)]

    async def cancel_job(self, job_id: int) -> Cancelled | None:
        async with self._db.transaction() as connection:
            row = await connection.fetchrow(_TARGET, job_id)
            if row is None:
                return None
            job = job_from_row(tuple(row))
            if job.claimed_by is None:
                await connection.execute(_DELETE, job_id)
            else:
                await connection.execute(_MARK, job_id)
        if job.claimed_by is not None:
            self._notifier.announce_cancel()
        return Cancelled(job, running=job.claimed_by is not None)

    async def cancel_asked(self, leases: Sequence[Lease]) -> list[Lease]:
        if not leases:
            return []
        ids, tokens = [lease.job_id for lease in leases], [lease.token for lease in leases]
        asked = {Lease(row[0], row[1]) for row in await self._db.fetch(_ASKED, ids, tokens)}
        return [lease for lease in leases if lease in asked]
