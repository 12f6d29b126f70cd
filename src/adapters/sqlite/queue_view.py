"""The operator's view of the queue on SQLite."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.sql.job_rows import FAILED_JOB_COLUMNS, JOB_COLUMNS, failed_from_row, job_from_row
from adapters.sql.job_stats import stats_from_rows, stats_sql
from adapters.sql.json_text import dump_json
from adapters.sqlite.connection import Db, changes, fetch_all, fetch_one
from adapters.sqlite.enqueues import Enqueue, insert_job
from adapters.sqlite.port_base import SqliteAccess
from adapters.sqlite.store_clock import STORE_NOW
from ports.jobs import FailedJob, Job, NewJob, QueueCounts, QueueStats
from ports.queue_view import QueueView

_LIST_JOBS = f"""
    SELECT {JOB_COLUMNS}
    FROM jobs ORDER BY id LIMIT ?
"""  # noqa: S608 - a constant column list
_LIST_FAILED = f"""
    SELECT {FAILED_JOB_COLUMNS}
    FROM failed_jobs ORDER BY id LIMIT ?
"""  # noqa: S608 - a constant column list
_COUNTS = """
    SELECT count(*), count(claimed_by), (SELECT count(*) FROM failed_jobs) FROM jobs
"""
_STATS = stats_sql("?1", STORE_NOW)
# A range of the claim's own index (jobs_fair): only the rows before this one are read.
_AHEAD_OF = """
    SELECT count(*) FROM jobs AS ahead INDEXED BY jobs_fair, jobs AS me
    WHERE me.id = ?1 AND me.claimed_by IS NULL
        AND ahead.claimed_by IS NULL AND ahead.available_at <= ?2
        AND (ahead.turn, ahead.id) < (me.turn, me.id)
"""
_PURGE = "DELETE FROM failed_jobs WHERE (?1 IS NULL OR failed_at < ?1) AND (?2 IS NULL OR name = ?2)"
_FAILED_TO_RETRY_ALL = "SELECT id, name, payload, max_attempts, key, owner_id FROM failed_jobs ORDER BY id"
_FAILED_TO_RETRY_SOME = """
    SELECT id, name, payload, max_attempts, key, owner_id FROM failed_jobs
    WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id
"""


class SqliteQueueView(SqliteAccess, QueueView):
    async def counts(self) -> QueueCounts:
        total, running, failed = await self._read(lambda db: fetch_one(db, _COUNTS))
        return QueueCounts(waiting=total - running, running=running, failed=failed)

    async def stats(self, now: float) -> QueueStats:
        rows = await self._read(lambda db: fetch_all(db, _STATS, (now,)))
        return stats_from_rows(now, rows)

    async def ahead_of(self, job_id: int, now: float) -> int:
        (ahead,) = await self._read(lambda db: fetch_one(db, _AHEAD_OF, (job_id, now)))
        return int(ahead)

    async def list_jobs(self, limit: int = 100) -> list[Job]:
        rows = await self._read(lambda db: fetch_all(db, _LIST_JOBS, (limit,)))
        return [job_from_row(row) for row in rows]

    async def list_failed(self, limit: int = 100) -> list[FailedJob]:
        rows = await self._read(lambda db: fetch_all(db, _LIST_FAILED, (limit,)))
        return [failed_from_row(row) for row in rows]

    async def retry_failed(self, failed_ids: Sequence[int] | None, now: float) -> list[int]:
        params: tuple[object, ...] = ()
        if failed_ids is None:
            select = _FAILED_TO_RETRY_ALL
        else:
            select, params = _FAILED_TO_RETRY_SOME, (dump_json([int(i) for i in failed_ids]),)

        async def work(db: Db) -> list[int]:
            new_ids = []
            for failed_id, name, payload, max_attempts, key, owner in await fetch_all(db, select, params):
                await db.execute("DELETE FROM failed_jobs WHERE id = ?", (failed_id,))
                job = NewJob(name, {}, max_attempts, now, key, owner)
                new_ids.append(await insert_job(db, Enqueue(job, payload, now, None, self._fair)))
            return new_ids

        return await self._write(work)

    async def purge_failed(self, failed_before: float | None = None, name: str | None = None) -> int:
        return await self._write(lambda db: changes(db, _PURGE, (failed_before, name)))
