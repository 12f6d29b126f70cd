"""When a blob's bytes may go.

Invariant: a blob is "had" when its row has a file_id or its bytes exist. Bytes go once
Telegram holds the video (a file_id is recorded), or when an unsent blob nobody waits for was
not used for a day (created or fetched: a delivery waiting out a Telegram outage fetches its
bytes again at each try, so they stay for as long as it waits). A parked confirmation pins its
blob: its bytes stay whatever their age.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ports.blob_files import BlobFile
from ports.blobs import BlobRecord

UNSENT_MAX_AGE_SECONDS = 24 * 3600
ORPHAN_GRACE_SECONDS = 3600
"""A file younger than this may belong to a download that is being recorded right now."""


def has_blob(record: BlobRecord | None, bytes_exist: bool) -> bool:
    return record is not None and (record.file_id is not None or bytes_exist)


def should_drop_bytes(record: BlobRecord, pinned: bool, now: float) -> bool:
    if record.file_name is None or pinned:
        return False
    if record.file_id is not None:
        return True
    return now - max(record.created_at, record.last_used) > UNSENT_MAX_AGE_SECONDS


def over_cap_evictions(records: Iterable[BlobRecord], pinned: set[str], cap_bytes: int) -> list[BlobRecord]:
    """Sent blobs whose bytes to drop, least recently used first, until the folder fits the cap.

    Unsent bytes are never evicted for space: a job is waiting for them.
    """
    if cap_bytes <= 0:
        return []
    with_bytes = [r for r in records if r.file_name is not None]
    total = sum(r.size or 0 for r in with_bytes)
    candidates = sorted(
        (r for r in with_bytes if r.file_id is not None and r.key not in pinned),
        key=lambda r: (r.last_used, r.key),
    )
    evicted: list[BlobRecord] = []
    for record in candidates:
        if total <= cap_bytes:
            break
        evicted.append(record)
        total -= record.size or 0
    return evicted


@dataclass(frozen=True, slots=True)
class SweepPlan:
    unlink_names: tuple[str, ...]
    """Files no row points at."""
    forget_keys: tuple[str, ...]
    """Rows whose bytes vanished and that have no file_id: nothing of them is left."""


def plan_sweep(records: Sequence[BlobRecord], files: Sequence[BlobFile], now: float) -> SweepPlan:
    present = {f.name for f in files}
    referenced = {r.file_name for r in records if r.file_name is not None}
    orphans = tuple(
        f.name for f in files if f.name not in referenced and now - f.modified_at > ORPHAN_GRACE_SECONDS
    )
    vanished = tuple(r.key for r in records if r.file_id is None and r.file_name not in present)
    return SweepPlan(orphans, vanished)
