"""The queries SQLite runs, as its planner reads them: the claim walks the fair order's index,
every lookup uses its index, a batch's finishing writes look their rows up by id, taking back
dead holders reads only the held rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.sqlite import SqliteStore
from tests.support.sqlite_files import (
    plan_of,
)


async def test_the_claim_walks_the_fair_order_index_without_sorting(store: SqliteStore, path: Path) -> None:
    from adapters.sqlite.claims import _AT_ONCE, FREE, FREE_UNPAUSED, QUICK

    for sql, params in ((FREE, (0, 3)), (FREE_UNPAUSED, (0, 3, "[]")), (QUICK, (0, 3))):
        plan = plan_of(path, sql, params)
        assert "USING INDEX jobs_fair" in plan
        assert "TEMP B-TREE" not in plan
    for sql in _AT_ONCE.values():  # the same walk inside the claim that takes a batch's rows at once
        plan = plan_of(path, sql, (0, 3, "[]", 0, "w", 60, 0))
        assert "USING INDEX jobs_fair" in plan
        assert "TEMP B-TREE" not in plan
        assert "SEARCH jobs USING INTEGER PRIMARY KEY" in plan
        assert "SCAN jobs" not in plan.replace("SCAN jobs USING INDEX jobs_fair", "")


async def test_a_new_rows_turn_is_index_lookups_only(store: SqliteStore, path: Path) -> None:
    from adapters.sqlite.enqueues import _INSERT_JOB

    plan = plan_of(path, _INSERT_JOB, ("n", "{}", 3, 0.0, "", None, 0.0, 7, False, 7, 1, 2, "https://x"))

    assert "jobs_requester" in plan
    assert "jobs_claimed_by" in plan
    assert "jobs_fair" in plan
    assert "SCAN jobs" not in plan.replace("SCAN jobs USING", "")
    assert "SEARCH handled_urls USING PRIMARY KEY" in plan  # the guard's mark


async def test_the_place_in_the_queue_reads_only_the_rows_before_it(store: SqliteStore, path: Path) -> None:
    from adapters.sqlite.queue_view import _AHEAD_OF

    plan = plan_of(path, _AHEAD_OF, (1, 0.0))

    assert "USING INTEGER PRIMARY KEY" in plan
    assert "jobs_fair (turn<?)" in plan
    assert "TEMP B-TREE" not in plan


@pytest.mark.parametrize(
    ("module", "query", "index"),
    [
        ("jobs", "_NEXT_FREE", "jobs_available_at"),
        ("jobs", "_NEXT_FREE_UNPAUSED", "jobs_available_at"),
        ("jobs", "_NEXT_LEASE_END", "jobs_lease_until"),
        ("claims", "_STATE", "jobs_claimed_by"),
        ("claims", "_STATE", "jobs_lease_until"),
        ("claims", "_A_LEASE_ENDED", "jobs_lease_until"),
        ("jobs", "_RENEW", "jobs_claimed_by"),
        ("jobs", "_SAME_NAME_EXISTS", "jobs_name"),
        ("quota", "_COUNT_FOR_OWNER", "jobs_owner"),
        ("quota", "_LINKS_SINCE", "user_links_by_user"),
        ("quota", "_FORGET", "user_links_by_user"),
        ("cancels", "_JOBS_OF", "jobs_requester"),
        ("blobs", "_PINNED_BY_PENDING", "pending_blob_key"),
        ("pending", "_EXPIRE", "pending_created_at"),
        ("caches", "_SWEEP_INFO", "video_info_created_at"),
        ("caches", "_SWEEP_HANDLED", "handled_urls_created_at"),
    ],
)
async def test_lookups_use_their_index(
    store: SqliteStore, path: Path, module: str, query: str, index: str
) -> None:
    import importlib

    sql = getattr(importlib.import_module(f"adapters.sqlite.{module}"), query)
    plan = plan_of(path, sql, [0] * sql.count("?"))

    assert f"INDEX {index} " in f"{plan} "


@pytest.mark.parametrize(("module", "query"), [("completions", "_COMPLETE"), ("claims", "_TAKE")])
async def test_a_batchs_rows_are_looked_up_by_id(
    store: SqliteStore, path: Path, module: str, query: str
) -> None:
    import importlib

    sql = getattr(importlib.import_module(f"adapters.sqlite.{module}"), query)
    plan = plan_of(path, sql, ["w", 0, "[[1, 1]]"][-sql.count("?") :])

    assert "USING INTEGER PRIMARY KEY" in plan
    assert "SCAN jobs" not in plan


async def test_taking_back_dead_holders_reads_only_the_held_rows(store: SqliteStore, path: Path) -> None:
    """It runs before every claim: it must cost a look at the held rows, not a scan of the queue."""
    from adapters.sqlite.claims import _TAKE_BACK

    plan = plan_of(path, _TAKE_BACK, {"me": "w", "dead_before": 0})  # type: ignore[arg-type]

    assert "INDEX jobs_claimed_by" in plan
    assert "SCAN jobs" not in plan.replace("SCAN jobs USING INDEX jobs_claimed_by", "")
