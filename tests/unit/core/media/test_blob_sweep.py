"""The sweep's own rules for bytes a release left behind."""

from __future__ import annotations

from core.blob_retention import UNSENT_MAX_AGE_SECONDS
from core.media.blob_sweep import SENT_IDLE_SECONDS, sweep_drops_sent, sweep_drops_unsent
from tests.support.blob_records import NOW, record, sent


def test_the_sweep_drops_unsent_blobs_by_age_unused_and_leaves_sent_ones_to_their_own_rule() -> None:
    old = NOW - UNSENT_MAX_AGE_SECONDS - 1
    assert sweep_drops_unsent(record(created_at=old, last_used=old), pinned=False, now=NOW)
    assert not sweep_drops_unsent(record(created_at=old, last_used=old), pinned=True, now=NOW)
    assert not sweep_drops_unsent(record(), pinned=False, now=NOW)
    assert not sweep_drops_unsent(sent("s", last_used=old), pinned=False, now=NOW)


def test_the_sweep_drops_sent_bytes_left_behind_once_idle() -> None:
    assert sweep_drops_sent(sent("s", last_used=NOW - SENT_IDLE_SECONDS - 1), pinned=False, now=NOW)
    assert not sweep_drops_sent(sent("s", last_used=NOW - SENT_IDLE_SECONDS + 1), pinned=False, now=NOW)
    assert not sweep_drops_sent(sent("s", last_used=NOW - SENT_IDLE_SECONDS - 1), pinned=True, now=NOW)
    assert not sweep_drops_sent(record(created_at=0.0, last_used=0.0), pinned=False, now=NOW)
