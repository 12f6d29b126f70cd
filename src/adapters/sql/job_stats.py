"""The queue's states by job name, in SQL both stores run (SQLite and PostgreSQL).

One statement reads both tables, so the counts are of one snapshot: a row that moves from `jobs`
to `failed_jobs` meanwhile is counted once, never twice or not at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ports.jobs import JobNameStats, QueueStats

_STATS = """
    SELECT name,
        count(*) FILTER (WHERE claimed_by IS NULL AND available_at <= {now}),
        count(*) FILTER (WHERE claimed_by IS NULL AND available_at > {now} AND attempts = 0),
        count(*) FILTER (WHERE claimed_by IS NULL AND available_at > {now} AND attempts > 0),
        count(*) FILTER (
            WHERE claimed_by IS NOT NULL AND (lease_until IS NULL OR lease_until >= {store_now})
        ),
        count(*) FILTER (WHERE claimed_by IS NOT NULL AND lease_until < {store_now}),
        0,
        min(available_at) FILTER (WHERE claimed_by IS NULL AND available_at <= {now}),
        NULL
    FROM jobs GROUP BY name
    UNION ALL
    SELECT name, 0, 0, 0, 0, 0, count(*), NULL, max(failed_at) FROM failed_jobs GROUP BY name
"""


def stats_sql(now_parameter: str, store_now: str) -> str:
    """The statement, with the dialect's placeholder for the one parameter, `now` (the caller's
    clock, which says what is due), and its expression of the store's clock (which says which
    leases have ended)."""
    return _STATS.format(now=now_parameter, store_now=store_now)


def stats_from_rows(now: float, rows: Iterable[Sequence[Any]]) -> QueueStats:
    """Rows in the statement's columns; a name may come in several (they add up)."""
    merged: dict[str, JobNameStats] = {}
    for name, queued, scheduled, backing_off, running, overdue, failed, oldest_due, last_failed in rows:
        jobs = merged.get(name, JobNameStats(name))
        merged[name] = JobNameStats(
            name,
            queued=jobs.queued + queued,
            scheduled=jobs.scheduled + scheduled,
            backing_off=jobs.backing_off + backing_off,
            running=jobs.running + running,
            overdue=jobs.overdue + overdue,
            failed=jobs.failed + failed,
            oldest_due_at=_earliest(jobs.oldest_due_at, oldest_due),
            last_failed_at=_latest(jobs.last_failed_at, last_failed),
        )
    return QueueStats(now, tuple(merged[name] for name in sorted(merged)))


def _earliest(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else min(a, b)


def _latest(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)
