"""The one path a link takes to become a video in Telegram, for every job that delivers one.

guard → scrape (cached) → sent by file_id when Telegram has the video (or its parts, see
albums.py) → size check (too large even compressed or in parts, or over the download cap:
refused before a byte) → one shared download, made playable or compressed to fit by the
downloader → size check on the bytes (past the limit: cut into parts, sent as albums) → upload
with a thumbnail → the file_id recorded and the bytes released. What is a job's own stays behind two
ports: its `Destination` (where the video goes, and what a long or too large video means there)
and its `Report` (what the chat hears on the way). A video whose chat is busy for a while
(Telegram's pacing) comes back later (`Deferred`) instead of holding a worker.
"""

from __future__ import annotations

import sys
from contextlib import AbstractAsyncContextManager, nullcontext
from pathlib import Path

from returns.result import Failure, Result, Success

from core.blob_names import blob_key
from core.jobs.outcome import Deferred, JobFailure, JobOutcome
from core.media.blob_service import BlobService
from core.media.fit import SizeLimits, SizeVerdict, verdict_before_download
from core.media.info_cache import InfoService
from core.media.part_blobs import BlobParts, CutResult
from core.media.thumbnails import Thumbnails
from core.telegram_errors import is_wrong_file_id
from core.url_guard import UrlGuard
from core.work.delivery.albums import Albums
from core.work.delivery.destination import Destination
from core.work.delivery.failures import no_video, refused, tool_failure, vanished
from core.work.delivery.report import Report
from core.work.delivery.sending import (
    after_send,
    fetch_bytes,
    output_of,
    refuse_oversize,
    send_reported,
    video_meta,
)
from ports.blobs import BlobRecord
from ports.clock import Clock
from ports.media import Downloader, ToolFailure, VideoInfo
from ports.messenger import MessengerError, SentVideo, StoredVideo, VideoFile

Sent = Result[SentVideo | None, MessengerError]


class Delivery:
    def __init__(
        self,
        *,
        guard: UrlGuard,
        info: InfoService,
        blobs: BlobService,
        parts: BlobParts,
        albums: Albums,
        downloader: Downloader,
        thumbnails: Thumbnails | None,
        clock: Clock,
        upload_limit_bytes: int,
        max_download_bytes: int,
        max_parts: int,
        ytdlp_timeout_seconds: float,
    ) -> None:
        """`downloader`: what makes the file playable everywhere and fit the upload limit (or
        leaves it whole, to be cut into at most `max_parts` parts); `thumbnails` None: Telegram
        makes its own preview where it can; `max_download_bytes`: nothing announced bigger is
        fetched (0: no cap)."""
        self._guard = guard
        self._info = info
        self._blobs = blobs
        self._parts = parts
        self._albums = albums
        self._downloader = downloader
        self._thumbnails = thumbnails
        self._clock = clock
        self._limit = upload_limit_bytes
        self._timeout = ytdlp_timeout_seconds
        self._limits = SizeLimits(
            upload_bytes=upload_limit_bytes,
            download_bytes=max_download_bytes or sys.maxsize,
            max_parts=max_parts,
        )

    async def videos(self, url: str, report: Report) -> Result[list[VideoInfo], JobFailure]:
        """The videos behind `url` (photo items left out), if the bot may fetch it; never none."""
        allowed = await self._guard.check(url)
        if isinstance(allowed, Failure):
            return Failure(refused(allowed.failure()))
        scraped = await self._scrape(url, report)
        if isinstance(scraped, Failure):
            return Failure(tool_failure(scraped.failure()))
        videos = [e for e in scraped.unwrap() if e.has_video]
        return Success(videos) if videos else Failure(no_video())

    async def _scrape(self, url: str, report: Report) -> Result[list[VideoInfo], ToolFailure]:
        """Cached entries without a word to the chat (a cache hit is just the video)."""
        cached = None if report.verbose else await self._info.cached(url)
        if cached:
            return Success(cached)
        await report.scraping()
        return await self._info.scrape(
            url,
            timeout=self._timeout,
            bypass_cache=report.verbose,
            verbose=report.verbose,
            on_output=output_of(report),
        )

    async def deliver(self, info: VideoInfo, to: Destination, report: Report) -> JobOutcome:
        key = blob_key(info)
        record = await self._blobs.find(key)
        parts = await self._parts.find(key) if to.takes_albums and not _sent_whole(record) else None
        known_duration = info.duration if info.duration is not None else record.duration if record else None
        # Asked even when Telegram has it: the question is about the group's screen, not bandwidth.
        pinned = key if record is not None and record.file_name is not None else None
        if (held := await to.hold(known_duration, pinned)) is not None:
            return held
        report.found(info)  # a cache hit's log too ends on what the video is
        if record is not None and record.file_id is not None:
            stored = StoredVideo(record.file_id)
            if (later := to.not_before(stored)) is not None:
                return Success(Deferred(later))
            sent = await self._send(to, stored, record, info, report)
            if not (isinstance(sent, Failure) and is_wrong_file_id(sent.failure())):
                return await self._after_send(to, record, sent, record.file_id, report)
            await self._blobs.clear_file_id(key)
        if parts is not None and (outcome := await self._albums.send(info, parts, to, report)) is not None:
            return outcome  # the parts went by file_id (or from their bytes): nothing to fetch
        verdict = verdict_before_download(info.filesize, info.duration, info.height, self._limits)
        if verdict is SizeVerdict.TOO_LARGE or (verdict is SizeVerdict.PARTS and not to.takes_albums):
            await report.ending()
            return await to.too_large(info.filesize or 0)
        if verdict is SizeVerdict.TOO_MANY_PARTS:
            await report.ending()
            max_parts = self._limits.max_parts if to.takes_albums else None
            return await to.too_large(info.filesize or 0, max_parts=max_parts)
        await report.downloading()
        async with self._blobs.holding(key):
            fetched = await fetch_bytes(self._blobs, info, self._downloader, self._timeout, report, to)
            if not isinstance(fetched, BlobRecord):
                return fetched
            if (fetched.size or 0) <= self._limit or not to.takes_albums:
                return await self._upload(info, fetched, to, report)
            if info.duration is None and (held := await to.hold(fetched.duration, key)) is not None:
                return held  # the probe measured a duration the scrape did not know
            cut = await self._parts.cut(fetched, info)
        return await self._send_parts(info, fetched, cut, to, report)

    async def _send_parts(
        self, info: VideoInfo, whole: BlobRecord, cut: CutResult, to: Destination, report: Report
    ) -> JobOutcome:
        """The whole file's bytes go (its parts hold the video now, or it cannot be sent at all)."""
        await self._blobs.drop_if(whole.key, lambda _record, pinned: not pinned)
        if isinstance(cut, Failure):
            failure = cut.failure()
            if failure.too_large_bytes is None:
                return Failure(tool_failure(failure))
            await report.ending()
            return await to.too_large(failure.too_large_bytes)
        sent = await self._albums.send(info, cut.unwrap(), to, report)
        # None: another job's fresh parts were refused by file_id (a moment ago): try again.
        return sent if sent is not None else Failure(vanished())

    async def _upload(
        self, info: VideoInfo, record: BlobRecord, to: Destination, report: Report
    ) -> JobOutcome:
        size = record.size or 0
        if (refused := await refuse_oversize(self._blobs, record, self._limit, report, to)) is not None:
            return refused
        if info.duration is None and (held := await to.hold(record.duration, record.key)) is not None:
            return held  # the probe measured a duration the scrape did not know
        path = self._blobs.path_of(record)
        if path is None:
            return Failure(vanished())
        upload = VideoFile(path)
        if (later := to.not_before(upload)) is not None:
            return Success(Deferred(later))  # the bytes stay on disk for the next turn
        await report.uploading(size)
        async with self._thumbnail(path, record.duration) as thumbnail:
            sent = await self._send(to, upload, record, info, report, thumbnail)
        return await self._after_send(to, record, sent, None, report)

    def _thumbnail(self, path: Path, duration: float | None) -> AbstractAsyncContextManager[Path | None]:
        if self._thumbnails is None:
            return nullcontext(None)
        return self._thumbnails.of(path, duration)

    async def _send(
        self,
        to: Destination,
        video: VideoFile | StoredVideo,
        record: BlobRecord,
        info: VideoInfo,
        report: Report,
        thumbnail: Path | None = None,
    ) -> Sent:
        meta = video_meta(record, info, caption=None, thumbnail=thumbnail)
        return await send_reported(report, lambda: to.send(video, meta))

    async def _after_send(
        self, to: Destination, record: BlobRecord, sent: Sent, stored_file_id: str | None, report: Report
    ) -> JobOutcome:
        return await after_send(self._blobs, self._clock, to, record, sent, stored_file_id, report)


def _sent_whole(record: BlobRecord | None) -> bool:
    return record is not None and record.file_id is not None
