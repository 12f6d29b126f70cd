"""`vidrelay jobs stats`: the queue by job name and state, as a table or as JSON."""

from __future__ import annotations

import json
from dataclasses import asdict

from entrypoints.durations import show_duration
from ports.jobs import JobNameStats, QueueStats

TOTAL = "all"
_COUNTED = ("queued", "scheduled", "backing_off", "running", "overdue", "failed")
_HEADINGS = ("job", "queued", "scheduled", "backing off", "running", "overdue", "failed", "oldest queued")


def total(stats: QueueStats) -> JobNameStats:
    names = stats.names
    due = [s.oldest_due_at for s in names if s.oldest_due_at is not None]
    failures = [s.last_failed_at for s in names if s.last_failed_at is not None]
    return JobNameStats(
        TOTAL,
        **{state: sum(getattr(s, state) for s in names) for state in _COUNTED},
        oldest_due_at=min(due, default=None),
        last_failed_at=max(failures, default=None),
    )


def as_json(stats: QueueStats) -> str:
    def entry(row: JobNameStats) -> dict[str, object]:
        waited = None if row.oldest_due_at is None else round(stats.at - row.oldest_due_at, 3)
        return asdict(row) | {"oldest_queued_age_seconds": waited}

    return json.dumps(
        {"at": stats.at, "jobs": [entry(row) for row in stats.names], "total": entry(total(stats))},
        ensure_ascii=False,
    )


def as_table(stats: QueueStats) -> list[str]:
    rows = [_HEADINGS, *(_cells(row, stats.at) for row in (*stats.names, total(stats)))]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADINGS))]
    lines = ["  ".join(_aligned(cells, widths)).rstrip() for cells in rows]
    everything = total(stats)
    if everything.failed:
        ago = show_duration(stats.at - (everything.last_failed_at or stats.at))
        lines.append(
            f"{everything.failed} dead-lettered, the last {ago} ago: `vidrelay jobs list --failed` shows"
            " why, `vidrelay jobs retry` puts them back"
        )
    return lines


def _cells(row: JobNameStats, now: float) -> tuple[str, ...]:
    waited = "-" if row.oldest_due_at is None else show_duration(now - row.oldest_due_at)
    return (row.name, *(str(getattr(row, state)) for state in _COUNTED), waited)


def _aligned(cells: tuple[str, ...], widths: list[int]) -> list[str]:
    return [cells[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True))]
