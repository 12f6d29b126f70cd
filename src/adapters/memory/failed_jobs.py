"""The operator's view and the per-user cap, in memory."""

from __future__ import annotations

import copy
from collections.abc import Sequence

from adapters.memory.tables import MemoryTablesUser
from ports.failed_jobs import FailedJobs
from ports.jobs import FailedJob, Job, NewJob, QueueCounts
from ports.quota import UserQuota


class MemoryFailedJobs(MemoryTablesUser, FailedJobs):
    async def counts(self) -> QueueCounts:
        jobs = self._tables.jobs.values()
        running = sum(1 for j in jobs if j.claimed_by is not None)
        return QueueCounts(len(jobs) - running, running, len(self._tables.failed))

    async def list_jobs(self, limit: int = 100) -> list[Job]:
        return [copy.deepcopy(j) for j in list(self._tables.jobs.values())[:limit]]

    async def list_failed(self, limit: int = 100) -> list[FailedJob]:
        return [copy.deepcopy(f) for f in list(self._tables.failed.values())[:limit]]

    async def retry_failed(self, failed_ids: Sequence[int] | None, now: float) -> list[int]:
        failed = self._tables.failed
        chosen = [f for f in failed.values() if failed_ids is None or f.id in failed_ids]
        new_ids = []
        for row in chosen:
            del failed[row.id]
            job = NewJob(row.name, row.payload, row.max_attempts, key=row.key, owner_id=row.owner_id)
            new_ids.append(self._tables.insert_job(job, now))
        return new_ids

    async def purge_failed(self) -> int:
        count = len(self._tables.failed)
        self._tables.failed.clear()
        return count


class MemoryUserQuota(MemoryTablesUser, UserQuota):
    async def waiting_for_owner(self, owner_id: int) -> int:
        return sum(1 for j in self._tables.jobs.values() if j.owner_id == owner_id)
