"""The operator's view of the queue on PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.postgres.database import PostgresAccess
from adapters.postgres.notices import WorkNotifier
from adapters.sql.job_rows import FAILED_JOB_COLUMNS, JOB_COLUMNS, failed_from_row, job_from_row
from adapters.sql.job_stats import stats_from_rows, stats_sql
from ports.jobs import FailedJob, Job, QueueCounts, QueueStats
from ports.queue_view import QueueView

_COUNTS = """
    SELECT count(*), count(claimed_by), (SELECT count(*) FROM failed_jobs) FROM jobs
"""
_STATS = stats_sql("$1::double precision", "vidrelay_now()")
_PURGE = """
    DELETE FROM failed_jobs
    WHERE ($1::double precision IS NULL OR failed_at < $1) AND ($2::text IS NULL OR name = $2)
"""
# A range of the claim's own index (jobs_fair): only the rows before this one are read.
_AHEAD_OF = """
    SELECT count(*) FROM jobs AS ahead, jobs AS me
    WHERE me.id = $1 AND me.claimed_by IS NULL
        AND ahead.claimed_by IS NULL AND ahead.available_at <= $2
        AND (ahead.turn, ahead.id) < (me.turn, me.id)
"""
_LIST_JOBS = f"SELECT {JOB_COLUMNS} FROM jobs ORDER BY id LIMIT $1"  # noqa: S608 - a constant column list
_LIST_FAILED = f"""
    SELECT {FAILED_JOB_COLUMNS}
    FROM failed_jobs ORDER BY id LIMIT $1
"""  # noqa: S608 - a constant column list
# A retried job starts over: attempts 0, due now, in the order it had failed.
_RETRY_FAILED = """
    WITH moved AS (
        DELETE FROM failed_jobs WHERE $1::bigint[] IS NULL OR id = ANY ($1::bigint[])
        RETURNING id, name, payload, max_attempts, key, owner_id
    )
    INSERT INTO jobs (name, payload, max_attempts, available_at, key, owner_id, created_at, turn)
    SELECT name, payload, max_attempts, $2, key, owner_id, $2, vidrelay_turn(NULL, false)
    FROM moved ORDER BY moved.id
    RETURNING id
"""


class PostgresQueueView(PostgresAccess, QueueView):
    _notifier: WorkNotifier

    async def counts(self) -> QueueCounts:
        row = await self._db.fetchrow(_COUNTS)
        assert row is not None  # an aggregate always yields its row
        total, running, failed = row
        return QueueCounts(waiting=total - running, running=running, failed=failed)

    async def stats(self, now: float) -> QueueStats:
        return stats_from_rows(now, await self._db.fetch(_STATS, now))

    async def ahead_of(self, job_id: int, now: float) -> int:
        ahead: int = await self._db.fetchval(_AHEAD_OF, job_id, now)
        return ahead

    async def list_jobs(self, limit: int = 100) -> list[Job]:
        return [job_from_row(tuple(row)) for row in await self._db.fetch(_LIST_JOBS, limit)]

    async def list_failed(self, limit: int = 100) -> list[FailedJob]:
        return [failed_from_row(tuple(row)) for row in await self._db.fetch(_LIST_FAILED, limit)]

    async def retry_failed(self, failed_ids: Sequence[int] | None, now: float) -> list[int]:
        wanted = None if failed_ids is None else [int(i) for i in failed_ids]
        new_ids = sorted(row[0] for row in await self._db.fetch(_RETRY_FAILED, wanted, now))
        if new_ids:
            self._notifier.announce()
        return new_ids

    async def purge_failed(self, failed_before: float | None = None, name: str | None = None) -> int:
        return await self._db.execute(_PURGE, failed_before, name)
