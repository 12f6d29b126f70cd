"""Users cancelling their own work, in memory (ports.cancels)."""

from __future__ import annotations

import copy
from collections.abc import Sequence

from adapters.memory.tables import MemoryTablesUser
from ports.cancels import Cancelled, JobCancels
from ports.jobs import Job, Lease


class MemoryJobCancels(MemoryTablesUser, JobCancels):
    async def jobs_of(self, requester: int) -> list[Job]:
        rows = [j for j in self._tables.jobs.values() if j.requester == requester]
        return [copy.deepcopy(j) for j in sorted(rows, key=lambda j: j.id)]

    async def cancel_job(self, job_id: int) -> Cancelled | None:
        tables = self._tables
        job = tables.jobs.get(job_id)
        if job is None:
            return None
        if job.claimed_by is None:
            del tables.jobs[job_id]
            return Cancelled(copy.deepcopy(job), running=False)
        tables.cancel_asked.add(job_id)
        return Cancelled(copy.deepcopy(job), running=True)

    async def cancel_asked(self, leases: Sequence[Lease]) -> list[Lease]:
        jobs, marked = self._tables.jobs, self._tables.cancel_asked
        marked.intersection_update(jobs)  # a mark goes with its row
        return [
            lease
            for lease in leases
            if lease.job_id in marked
            and jobs[lease.job_id].token == lease.token
            and jobs[lease.job_id].claimed_by is not None
        ]
