"""The periodic blob sweep: orphans, vanished bytes, stale unsent blobs, leftover sent bytes,
then the disk cap. Keys with a fetch or release in progress are left for the next sweep."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial

from core.blob_retention import ORPHAN_GRACE_SECONDS, over_cap_evictions, plan_sweep, should_drop_bytes
from core.media.keyed_lock import KeyedLock
from ports.blob_files import BlobFiles
from ports.blobs import BlobIndex, BlobRecord
from ports.pending import PendingStore

log = logging.getLogger("vidrelay.blobs")

SENT_IDLE_SECONDS = float(ORPHAN_GRACE_SECONDS)
"""Sent bytes normally go when the sender releases them. Ones a sweep still finds (a crash between
sending and releasing, a pin that ended) go once unused this long; the disk cap may take them sooner."""

DropRule = Callable[[BlobRecord, bool], bool]
"""(record, pinned) -> whether its bytes go."""
DropIf = Callable[[str, DropRule], Awaitable[bool]]


def sweep_drops_unsent(record: BlobRecord, pinned: bool, now: float) -> bool:
    """An unsent blob nobody waits for, past its age limit."""
    return record.file_id is None and should_drop_bytes(record, pinned, now)


def sweep_drops_sent(record: BlobRecord, pinned: bool, now: float) -> bool:
    """Sent bytes that outlived their release."""
    return (
        record.file_id is not None
        and should_drop_bytes(record, pinned, now)
        and now - record.last_used > SENT_IDLE_SECONDS
    )


@dataclass(frozen=True, slots=True)
class SweepReport:
    orphans_removed: int = 0
    """Files no row pointed at."""
    rows_forgotten: int = 0
    """Rows without a file_id whose bytes had vanished."""
    lost_bytes_cleared: int = 0
    """Sent rows whose bytes had vanished: the row keeps its file_id, forgets the file."""
    unsent_dropped: int = 0
    sent_dropped: int = 0
    evicted_for_space: int = 0


class BlobSweep:
    def __init__(
        self,
        index: BlobIndex,
        files: BlobFiles,
        pending: PendingStore,
        locks: KeyedLock,
        drop_if: DropIf,
        *,
        max_bytes: int = 0,
    ) -> None:
        """`locks` and `drop_if` are the blob service's: a sweep and a fetch of one key never overlap."""
        self._index = index
        self._files = files
        self._pending = pending
        self._locks = locks
        self._drop_if = drop_if
        self._max_bytes = max_bytes

    async def sweep(self, now: float) -> SweepReport:
        records = await self._index.all_blobs()
        files = await self._files.listing()
        plan = plan_sweep(records, files, now)
        orphans = [name for name in plan.unlink_names if await self._files.unlink(name)]
        forgotten = [key for key in plan.forget_keys if await self._forget_if_vanished(key)]
        present = {f.name for f in files}
        lost = [
            r.key
            for r in records
            if r.file_id is not None
            and r.file_name is not None
            and not self._locks.busy(r.key)
            and r.file_name not in present
            and await self._index.detach_bytes(r.key, r.file_name)
        ]
        unsent = await self._drop_idle(lambda r, pinned: sweep_drops_unsent(r, pinned, now))
        sent = await self._drop_idle(lambda r, pinned: sweep_drops_sent(r, pinned, now))
        evicted = await self._enforce_cap()
        return SweepReport(len(orphans), len(forgotten), len(lost), unsent, sent, evicted)

    async def _forget_if_vanished(self, key: str) -> bool:
        if self._locks.busy(key):
            return False
        async with self._locks.hold(key):
            record = await self._index.blob(key)
            if record is None or record.file_id is not None:
                return False
            if record.file_name is not None and await self._files.size_of(record.file_name) is not None:
                return False
            await self._index.forget_blob(key)
            return True

    async def _drop_idle(self, rule: DropRule) -> int:
        pinned = await self._pending.pinned_keys()
        dropped = 0
        for record in await self._index.all_blobs():
            if self._locks.busy(record.key) or not rule(record, record.key in pinned):
                continue
            dropped += await self._drop_if(record.key, rule)
        return dropped

    async def _enforce_cap(self) -> int:
        if self._max_bytes <= 0:
            return 0
        pinned = await self._pending.pinned_keys()
        evicted = 0
        for victim in over_cap_evictions(await self._index.all_blobs(), pinned, self._max_bytes):
            if self._locks.busy(victim.key):
                continue
            evicted += await self._drop_if(victim.key, partial(_still_evictable, victim))
        if evicted:
            log.info("blob cap: evicted %d sent blob(s) to fit %d bytes", evicted, self._max_bytes)
        return evicted


def _still_evictable(victim: BlobRecord, record: BlobRecord, pinned: bool) -> bool:
    return not pinned and record.file_id is not None and record.file_name == victim.file_name
