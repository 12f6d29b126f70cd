"""The blob service: do we have the video, fetch its bytes once, let them go.

The rules live in `core.blob_names` (keys, file names) and `core.blob_retention` (when bytes go);
this service runs them over the BlobIndex (rows) and BlobFiles (bytes) ports. Bytes enter through
a fresh staging folder and one rename. They leave only through `BlobIndex.detach_bytes`, a
compare-and-set that a single caller wins, so two releases — in this process or another — never
both unlink. In this process a keyed lock also orders a release after
a fetch of the same key, so a release never unlinks bytes that a download is recording right now.

Jobs that share a download share its file: each holds the key (`holding`) from before its fetch
until its upload is done, and a release asked while anyone holds it waits for the last of them, so
one job's release never pulls the file from under another's upload.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Protocol, TypeVar

from returns.result import Failure, Result, Success

from core.blob_names import blob_file_name, blob_key
from core.blob_retention import has_blob, should_drop_bytes
from core.media.blob_sweep import BlobSweep, DropRule, SweepReport
from core.media.keyed_lock import KeyedLock
from core.media.single_flight import Listeners, SingleFlight
from ports.blob_files import BlobFiles
from ports.blobs import BlobIndex, BlobRecord
from ports.clock import Clock
from ports.errors import BlobFilesError
from ports.media import (
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

_T = TypeVar("_T")
FetchResult = Result[BlobRecord, ToolFailure]


@dataclass(frozen=True, slots=True)
class _Sinks:
    """What one caller of a shared download wants to hear."""

    progress: ProgressSink | None
    output: OutputSink | None

    def hear_progress(self, progress: Progress) -> None:
        if self.progress is not None:
            self.progress(progress)

    def hear_output(self, line: str) -> None:
        if self.output is not None:
            self.output(line)


class Fetcher(Protocol):
    """What a fetch downloads with: the Downloader port, or the sound alone (core.media.sound)."""

    async def download(
        self,
        info: VideoInfo,
        staging: Path,
        *,
        timeout: float,
        verbose: bool = False,
        on_progress: ProgressSink | None = None,
        on_output: OutputSink | None = None,
    ) -> Result[Path, ToolFailure]: ...


class BlobService:
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
        self._locks = KeyedLock()
        self._holders: Counter[str] = Counter()
        self._release_asked: set[str] = set()
        self._fetches: SingleFlight[FetchResult, _Sinks] = SingleFlight("vidrelay-blob-fetch")
        self._sweep = BlobSweep(index, files, pending, self._locks, self.drop_if, max_bytes=max_bytes)

    async def find(self, key: str) -> BlobRecord | None:
        """The row when we have the video; its `file_name` is set only when the bytes exist."""
        record = await self._index.blob(key)
        if record is None:
            return None
        exists = record.file_name is not None and await self._files.size_of(record.file_name) is not None
        if not has_blob(record, exists):
            return None
        return record if exists else replace(record, file_name=None, size=None)

    def path_of(self, record: BlobRecord) -> Path | None:
        return None if record.file_name is None else self._files.path_of(record.file_name)

    async def fetch(
        self,
        info: VideoInfo,
        downloader: Fetcher,
        *,
        timeout: float,
        verbose: bool = False,
        on_progress: ProgressSink | None = None,
        on_output: OutputSink | None = None,
        key: str | None = None,
    ) -> FetchResult:
        """The video's bytes on disk, downloading them unless they are already here.

        Concurrent calls for one blob key share a single download: the first caller's `timeout`
        and `verbose` apply, every caller's sinks hear its progress and output. `key`: the blob
        the bytes are kept as, when not the video's own (the file of "send as file").
        """
        key = key or blob_key(info)
        start = partial(self._fetch_once, key, info, downloader, timeout, verbose)
        return await self._fetches.join(key, start, _Sinks(on_progress, on_output))

    async def _fetch_once(
        self,
        key: str,
        info: VideoInfo,
        downloader: Fetcher,
        timeout: float,
        verbose: bool,
        listeners: Listeners[_Sinks],
    ) -> FetchResult:
        async with self._locks.hold(key):
            had = await self.find(key)
            if had is not None and had.file_name is not None:
                now = self._clock.now()
                await self._index.touch_blob(key, now)
                return Success(replace(had, last_used=now))
            async with self.staging(key) as staging:
                downloaded = await downloader.download(
                    info,
                    staging,
                    timeout=timeout,
                    verbose=verbose,
                    on_progress=lambda p: listeners.tell(lambda s: s.hear_progress(p)),
                    on_output=lambda line: listeners.tell(lambda s: s.hear_output(line)),
                )
                if isinstance(downloaded, Failure):
                    return Failure(downloaded.failure())
                return Success(await self._record(key, info, downloaded.unwrap()))

    @asynccontextmanager
    async def staging(self, key: str) -> AsyncIterator[Path]:
        """A fresh folder for bytes of `key` on their way in, removed with whatever is left in it."""
        staging = await self._files.new_staging(blob_file_name(key, "")[:16])
        try:
            yield staging
        finally:
            await self._remove_staging(staging)

    async def adopt(self, key: str, info: VideoInfo, produced: Path) -> BlobRecord:
        """`produced` (in a staging folder) becomes the bytes of `key` — bytes made from bytes we
        hold, such as a video's parts: moved in and recorded, as a download is."""
        async with self._locks.hold(key):
            return await self._record(key, info, produced)

    async def _remove_staging(self, staging: Path) -> None:
        try:
            await self._files.remove_staging(staging)
        except BlobFilesError as error:
            log.warning(
                "blob fetch: could not remove staging folder %s (boot clears it)", staging, exc_info=error
            )

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

    async def record_sent(self, key: str, file_id: str, file_unique_id: str) -> None:
        await self._index.set_file_id(key, file_id, file_unique_id, self._clock.now())

    async def clear_file_id(self, key: str) -> None:
        """Telegram refused the file_id: forget it, so the next request downloads again."""
        await self._index.clear_file_id(key)

    @asynccontextmanager
    async def holding(self, key: str) -> AsyncIterator[None]:
        """The bytes of `key` stay while this is held (a job uploads them); a `release` asked
        meanwhile happens when the last holder lets go."""
        self._holders[key] += 1
        try:
            yield
        finally:
            self._holders[key] -= 1
            if self._holders[key] <= 0:
                del self._holders[key]
                if key in self._release_asked:
                    self._release_asked.discard(key)
                    await self.release(key)

    async def release(self, key: str) -> bool:
        """Let the bytes go if the GC rule says so (sent, or unsent and stale); True if unlinked.
        While a job holds the key, the release waits for the last holder instead (False)."""
        if self._holders[key] > 0:
            self._release_asked.add(key)
            return False
        now = self._clock.now()
        return await self.drop_if(key, lambda record, pinned: should_drop_bytes(record, pinned, now))

    async def drop_if(self, key: str, rule: DropRule) -> bool:
        """Unlink the bytes of `key` if `rule(record, pinned)` holds, under the key's lock; never
        while a job holds them."""
        if self._holders[key] > 0:
            return False
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

    async def sweep(self) -> SweepReport:
        return await self._sweep.sweep(self._clock.now())


def _either(probed: _T | None, scraped: _T | None) -> _T | None:
    """The probe measures the bytes on disk; the scrape only announced them."""
    return scraped if probed is None else probed
