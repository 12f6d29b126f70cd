"""The operator's view of the queue, in memory."""

from __future__ import annotations

import copy
from collections.abc import Sequence

from adapters.memory.jobs import fair_order
from adapters.memory.tables import MemoryTablesUser
from adapters.sql.job_stats import stats_from_rows
from ports.jobs import FailedJob, Job, NewJob, QueueCounts, QueueStats
from ports.queue_view import QueueView


class MemoryQueueView(MemoryTablesUser, QueueView):
    async def counts(self) -> QueueCounts:
        jobs = self._tables.jobs.values()
        running = sum(1 for j in jobs if j.claimed_by is not None)
        return QueueCounts(len(jobs) - running, running, len(self._tables.failed))

    async def stats(self, now: float) -> QueueStats:
        return stats_from_rows(
            now,
            [
                *(_job_row(job, now) for job in self._tables.jobs.values()),
                *map(_failed_row, self._tables.failed.values()),
            ],
        )

    async def ahead_of(self, job_id: int, now: float) -> int:
        job = self._tables.jobs.get(job_id)
        if job is None or job.claimed_by is not None:
            return 0
        return sum(
            1
            for j in self._tables.jobs.values()
            if j.claimed_by is None and j.available_at <= now and fair_order(j) < fair_order(job)
        )

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

    async def purge_failed(self, failed_before: float | None = None, name: str | None = None) -> int:
        failed = self._tables.failed
        chosen = [
            f.id
            for f in failed.values()
            if (failed_before is None or f.failed_at < failed_before) and (name is None or f.name == name)
        ]
        for failed_id in chosen:
            del failed[failed_id]
        return len(chosen)


def _job_row(job: Job, now: float) -> tuple[object, ...]:
    """One job as a row of adapters.sql.job_stats' statement: a 1 in the column of its state."""
    free, due = job.claimed_by is None, job.available_at <= now
    held_in_time = not free and (job.lease_until is None or job.lease_until >= now)
    return (
        job.name,
        int(free and due),
        int(free and not due and job.attempts == 0),
        int(free and not due and job.attempts > 0),
        int(held_in_time),
        int(not free and not held_in_time),
        0,
        job.available_at if free and due else None,
        None,
    )


def _failed_row(row: FailedJob) -> tuple[object, ...]:
    return (row.name, 0, 0, 0, 0, 0, 1, None, row.failed_at)
