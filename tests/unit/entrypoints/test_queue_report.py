"""`vidrelay jobs stats` output: the totals, the table's columns, the JSON an operator's script reads."""

from __future__ import annotations

import json

from entrypoints.queue_report import as_json, as_table, total
from ports.jobs import JobNameStats, QueueStats

NOW = 1_700_000_000.0
STATS = QueueStats(
    NOW,
    (
        JobNameStats("download_video", queued=12, running=3, overdue=1, failed=4, oldest_due_at=NOW - 252,
                     last_failed_at=NOW - 7200),
        JobNameStats("update_ytdlp", scheduled=1, failed=1, last_failed_at=NOW - 60),
    ),
)  # fmt: skip


def test_the_total_adds_the_counts_and_keeps_the_extremes() -> None:
    assert total(STATS) == JobNameStats(
        "all", queued=12, scheduled=1, running=3, overdue=1, failed=5, oldest_due_at=NOW - 252,
        last_failed_at=NOW - 60,
    )  # fmt: skip


def test_the_table_aligns_its_columns_and_says_what_to_do_with_dead_letters() -> None:
    lines = as_table(STATS)
    assert lines == [
        "job             queued  scheduled  backing off  running  overdue  failed  oldest queued",
        "download_video      12          0            0        3        1       4          4m12s",
        "update_ytdlp         0          1            0        0        0       1              -",
        "all                 12          1            0        3        1       5          4m12s",
        "5 dead-lettered, the last 1m ago: `vidrelay jobs list --failed` shows why,"
        " `vidrelay jobs retry` puts them back",
    ]


def test_an_empty_queue_is_a_row_of_zeros_and_no_advice() -> None:
    assert as_table(QueueStats(NOW, ())) == [
        "job  queued  scheduled  backing off  running  overdue  failed  oldest queued",
        "all       0          0            0        0        0       0              -",
    ]


def test_the_json_carries_every_count_and_the_oldest_queued_age() -> None:
    data = json.loads(as_json(STATS))
    assert data["at"] == NOW
    [download, update] = data["jobs"]
    assert download == {
        "name": "download_video", "queued": 12, "scheduled": 0, "backing_off": 0, "running": 3,
        "overdue": 1, "failed": 4, "oldest_due_at": NOW - 252, "last_failed_at": NOW - 7200,
        "oldest_queued_age_seconds": 252.0,
    }  # fmt: skip
    assert update["oldest_queued_age_seconds"] is None
    assert data["total"]["failed"] == 5
