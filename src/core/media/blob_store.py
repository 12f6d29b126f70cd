"""The blob store as a domain service: do we have it, fetch it once, let its bytes go.

The rules live in `core.blobs`; this service runs them over the ports. Bytes enter through a
fresh staging folder and one rename. They leave only through `BlobIndex.detach_bytes`, a
compare-and-set that a single caller wins, so two releases — in this process or another —
never both unlink. In this process a keyed lock also orders a release after a fetch of the
same key, so a release never unlinks bytes that a download is recording right now.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TypeVar

from returns.result import Failure, Result, Success

from core.blobs import (
    ORPHAN_GRACE_SECONDS,
    blob_file_name,
    blob_key,
    has_blob,
    over_cap_evictions,
    plan_sweep,
    should_drop_bytes,
)
from core.media.keyed_lock import KeyedLock
from ports.blobs import BlobFiles, BlobIndex, BlobRecord
from ports.clock import Clock
from ports.errors import BlobFilesError
from ports.media import (
    Downloader,
    MediaProbe,
    MediaProber,
    OutputSink,
    Progress,
    ProgressSink,
    ToolFailure,
    VideoInfo,
)
from ports.pending import PendingStore

log = logging.getLogger("vidrelay.blobs")

SENT_IDLE_SECONDS = float(ORPHAN_GRACE_SECONDS)
"""Sent bytes normally go when the sender releases them. Ones a sweep still finds (a crash between
sending and releasing, a pin that ended) go once unused this long; the disk cap may take them sooner."""

_T = TypeVar("_T")
FetchResult = Result[BlobRecord, ToolFailure]


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


@dataclass(eq=False)
class _Flight:
    """One download that every concurrent request for the same key shares."""

    task: asyncio.Task[FetchResult] | None = None
    waiters: int = 0
    progress_sinks: list[ProgressSink] = field(default_factory=list)
    output_sinks: list[OutputSink] = field(default_factory=list)

    def report_progress(self, progress: Progress) -> None:
        _fan_out(self.progress_sinks, progress)

    def report_output(self, line: str) -> None:
        _fan_out(self.output_sinks, line)


def _fan_out(sinks: Iterable[Callable[[_T], None]], value: _T) -> None:
    for sink in list(sinks):
        try:
            sink(value)
        except Exception:
            # A listener's bug (a closed chat's progress bar) must not fail the shared download.
            log.exception("blob fetch: a progress listener failed")


class BlobStore:
    def __init__(
        self,
        index: BlobIndex,
        files: BlobFiles,
        pending: PendingStore,
        clock: Clock,
        prober: MediaProber | None = None,
        *,
        max_bytes: int = 0,
    ) -> None:
        self._index = index
        self._files = files
        self._pending = pending
        self._clock = clock
        self._prober = prober
        self._max_bytes = max_bytes
        self._locks = KeyedLock()
        self._flights: dict[str, _Flight] = {}

    # Do we have it? ------------------------------------------------------------------------

    async def find(self, key: str) -> BlobRecord | None:
        """The row when we have the video; its `file_name` is set only when the bytes exist."""
        record = await self._index.blob(key)
        if record is None:
            return None
        exists = record.file_name is not None and await self._files.size_of(record.file_name) is not None
        if not has_blob(record, exists):
            return None
        return record if exists else replace(record, file_name=None, size=None)

    async def has_blob(self, key: str) -> bool:
        return await self.find(key) is not None

    def path_of(self, record: BlobRecord) -> Path | None:
        return None if record.file_name is None else self._files.path_of(record.file_name)

    async def touch(self, key: str) -> None:
        await self._index.touch_blob(key, self._clock.now())

    # Fetch: one download per key -------------------------------------------------------------

    async def fetch(
        self,
        info: VideoInfo,
        downloader: Downloader,
        *,
        timeout: float,
        verbose: bool = False,
        on_progress: ProgressSink | None = None,
        on_output: OutputSink | None = None,
    ) -> FetchResult:
        """The video's bytes on disk, downloading them unless they are already here.

        Concurrent calls for one blob key share a single download: the first caller's `timeout`
        and `verbose` apply, every caller's sinks hear its progress and output. A caller that is
        cancelled stops waiting; the download is cancelled only when no caller is left.
        """
        key = blob_key(info)
        flight = self._flights.get(key)
        if flight is None:
            flight = _Flight()
            flight.task = asyncio.create_task(
                self._fetch_once(key, info, downloader, flight, timeout, verbose),
                name=f"vidrelay-blob-fetch:{key[:60]}",
            )
            self._flights[key] = flight
            flight.task.add_done_callback(partial(self._landed, key, flight))
        return await self._wait_for(key, flight, on_progress, on_output)

    def _landed(self, key: str, flight: _Flight, _: object) -> None:
        if self._flights.get(key) is flight:
            del self._flights[key]

    async def _wait_for(
        self, key: str, flight: _Flight, on_progress: ProgressSink | None, on_output: OutputSink | None
    ) -> FetchResult:
        task = flight.task
        assert task is not None
        flight.waiters += 1
        if on_progress is not None:
            flight.progress_sinks.append(on_progress)
        if on_output is not None:
            flight.output_sinks.append(on_output)
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if flight.waiters == 1 and not task.done():
                self._landed(key, flight, None)
                task.cancel()
                await asyncio.wait([task])
                if not task.cancelled():
                    task.exception()  # nobody else will look at it
            raise
        finally:
            flight.waiters -= 1
            if on_progress is not None:
                flight.progress_sinks.remove(on_progress)
            if on_output is not None:
                flight.output_sinks.remove(on_output)

    async def _fetch_once(
        self,
        key: str,
        info: VideoInfo,
        downloader: Downloader,
        flight: _Flight,
        timeout: float,
        verbose: bool,
    ) -> FetchResult:
        async with self._locks.hold(key):
            had = await self.find(key)
            if had is not None and had.file_name is not None:
                now = self._clock.now()
                await self._index.touch_blob(key, now)
                return Success(replace(had, last_used=now))
            staging = await self._files.new_staging(blob_file_name(key, "")[:16])
            try:
                downloaded = await downloader.download(
                    info,
                    staging,
                    timeout=timeout,
                    verbose=verbose,
                    on_progress=flight.report_progress,
                    on_output=flight.report_output,
                )
                if isinstance(downloaded, Failure):
                    return Failure(downloaded.failure())
                return Success(await self._record(key, info, downloaded.unwrap()))
            finally:
                await self._remove_staging(staging)

    async def _remove_staging(self, staging: Path) -> None:
        try:
            await self._files.remove_staging(staging)
        except BlobFilesError:
            log.warning("blob fetch: could not remove staging folder %s (boot clears it)", staging)

    async def _record(self, key: str, info: VideoInfo, produced: Path) -> BlobRecord:
        name = blob_file_name(key, produced.suffix.lstrip(".") or info.ext)
        path = await self._files.move_in(produced, name)
        try:
            size = await self._files.size_of(name)
            probe = await self._prober.probe(path) if self._prober is not None else None
            measured = probe or MediaProbe(None, None, None)
            previous = await self._index.blob(key)
            now = self._clock.now()
            record = BlobRecord(
                key=key,
                file_name=name,
                size=size,
                duration=_either(measured.duration, info.duration),
                width=_either(measured.width, info.width),
                height=_either(measured.height, info.height),
                file_id=previous.file_id if previous else None,
                file_unique_id=previous.file_unique_id if previous else None,
                created_at=now,
                last_used=now,
            )
            await self._index.put_blob(record)
        except BaseException:
            await self._files.unlink(name)
            raise
        return record

    # Sent, refused, released -----------------------------------------------------------------

    async def record_sent(self, key: str, file_id: str, file_unique_id: str) -> None:
        await self._index.set_file_id(key, file_id, file_unique_id, self._clock.now())

    async def clear_file_id(self, key: str) -> None:
        """Telegram refused the file_id: forget it, so the next request downloads again."""
        await self._index.clear_file_id(key)

    async def release(self, key: str) -> bool:
        """Let the bytes go if the GC rule says so (sent, or unsent and stale); True if unlinked."""
        now = self._clock.now()
        return await self._drop(key, lambda record, pinned: should_drop_bytes(record, pinned, now))

    async def _drop(self, key: str, rule: Callable[[BlobRecord, bool], bool]) -> bool:
        async with self._locks.hold(key):
            record = await self._index.blob(key)
            if record is None or record.file_name is None:
                return False
            if not rule(record, key in await self._pending.pinned_keys()):
                return False
            if not await self._index.detach_bytes(key, record.file_name):
                return False
            await self._files.unlink(record.file_name)
            return True

    # The periodic sweep ----------------------------------------------------------------------

    async def sweep(self) -> SweepReport:
        """Orphans, vanished bytes, stale unsent blobs, leftover sent bytes, then the disk cap.

        Keys with a fetch or release in progress are left for the next sweep.
        """
        now = self._clock.now()
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

    async def _drop_idle(self, rule: Callable[[BlobRecord, bool], bool]) -> int:
        pinned = await self._pending.pinned_keys()
        dropped = 0
        for record in await self._index.all_blobs():
            if self._locks.busy(record.key) or not rule(record, record.key in pinned):
                continue
            dropped += await self._drop(record.key, rule)
        return dropped

    async def _enforce_cap(self) -> int:
        if self._max_bytes <= 0:
            return 0
        pinned = await self._pending.pinned_keys()
        evicted = 0
        for victim in over_cap_evictions(await self._index.all_blobs(), pinned, self._max_bytes):
            if self._locks.busy(victim.key):
                continue
            evicted += await self._drop(victim.key, partial(_still_evictable, victim))
        if evicted:
            log.info("blob cap: evicted %d sent blob(s) to fit %d bytes", evicted, self._max_bytes)
        return evicted


def _still_evictable(victim: BlobRecord, record: BlobRecord, pinned: bool) -> bool:
    return not pinned and record.file_id is not None and record.file_name == victim.file_name


def _either(probed: _T | None, scraped: _T | None) -> _T | None:
    """The probe measures the bytes on disk; the scrape only announced them."""
    return scraped if probed is None else probed
