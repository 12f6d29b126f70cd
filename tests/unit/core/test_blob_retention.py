"""When a blob's bytes may go: "do we have it", the age and sent rules, the cap, the sweep plan."""

from __future__ import annotations

from dataclasses import replace

from core.blob_retention import (
    ORPHAN_GRACE_SECONDS,
    UNSENT_MAX_AGE_SECONDS,
    has_blob,
    over_cap_evictions,
    plan_sweep,
    should_drop_bytes,
)
from ports.blob_files import BlobFile
from tests.support.blob_records import NOW, record, sent


def test_has_blob_needs_a_file_id_or_the_bytes() -> None:
    assert not has_blob(None, bytes_exist=True)
    assert not has_blob(record(), bytes_exist=False)
    assert has_blob(record(), bytes_exist=True)
    assert has_blob(record(file_id="F", file_name=None), bytes_exist=False)


def test_sent_bytes_go_at_once_unless_pinned() -> None:
    assert should_drop_bytes(sent("a", NOW), pinned=False, now=NOW)
    assert not should_drop_bytes(sent("a", NOW), pinned=True, now=NOW)


def test_unsent_bytes_go_only_after_a_day_and_only_when_unpinned() -> None:
    young = record(created_at=NOW - UNSENT_MAX_AGE_SECONDS + 1, last_used=NOW - UNSENT_MAX_AGE_SECONDS + 1)
    old = record(created_at=NOW - UNSENT_MAX_AGE_SECONDS - 1, last_used=NOW - UNSENT_MAX_AGE_SECONDS - 1)
    assert not should_drop_bytes(young, pinned=False, now=NOW)
    assert should_drop_bytes(old, pinned=False, now=NOW)
    assert not should_drop_bytes(old, pinned=True, now=NOW)


def test_unsent_bytes_a_waiting_delivery_fetched_again_stay_past_a_day() -> None:
    """A delivery waiting out a Telegram outage touches its bytes at each try."""
    waiting = record(created_at=NOW - 3 * UNSENT_MAX_AGE_SECONDS, last_used=NOW - 60)
    abandoned = record(
        created_at=NOW - 3 * UNSENT_MAX_AGE_SECONDS, last_used=NOW - UNSENT_MAX_AGE_SECONDS - 1
    )
    assert not should_drop_bytes(waiting, pinned=False, now=NOW)
    assert should_drop_bytes(abandoned, pinned=False, now=NOW)


def test_nothing_to_drop_when_the_bytes_are_already_gone() -> None:
    assert not should_drop_bytes(record(file_name=None, file_id="F"), pinned=False, now=NOW)


def test_the_cap_evicts_least_recently_used_sent_bytes_until_it_fits() -> None:
    records = [sent("newest", NOW), sent("oldest", NOW - 30), sent("middle", NOW - 20)]

    evicted = over_cap_evictions(records, pinned=set(), cap_bytes=150)

    assert [r.key for r in evicted] == ["oldest", "middle"]


def test_the_cap_never_evicts_unsent_or_pinned_bytes_even_when_it_cannot_fit() -> None:
    records = [record("unsent", size=1000), sent("pinned", NOW - 100), sent("free", NOW)]

    evicted = over_cap_evictions(records, pinned={"pinned"}, cap_bytes=10)

    assert [r.key for r in evicted] == ["free"]


def test_no_cap_or_a_folder_under_the_cap_evicts_nothing() -> None:
    records = [sent("a", NOW), sent("b", NOW - 1)]
    assert over_cap_evictions(records, set(), cap_bytes=0) == []
    assert over_cap_evictions(records, set(), cap_bytes=200) == []


def test_rows_without_bytes_do_not_count_toward_the_cap() -> None:
    records = [replace(sent("gone", NOW - 50, size=10_000), file_name=None), sent("here", NOW)]
    assert over_cap_evictions(records, set(), cap_bytes=100) == []


def test_plan_sweep_unlinks_old_orphans_only() -> None:
    files = [
        BlobFile("k.mp4", 100, NOW - 10),
        BlobFile("old-orphan.mp4", 5, NOW - ORPHAN_GRACE_SECONDS - 1),
        BlobFile("fresh-orphan.mp4", 5, NOW - ORPHAN_GRACE_SECONDS + 1),
    ]

    plan = plan_sweep([record("k")], files, NOW)

    assert plan.unlink_names == ("old-orphan.mp4",)
    assert plan.forget_keys == ()


def test_plan_sweep_forgets_rows_whose_bytes_vanished_unless_they_have_a_file_id() -> None:
    records = [record("vanished"), sent("sent-vanished", NOW), record("here")]

    plan = plan_sweep(records, [BlobFile("here.mp4", 100, NOW)], NOW)

    assert plan.forget_keys == ("vanished",)
    assert plan.unlink_names == ()
