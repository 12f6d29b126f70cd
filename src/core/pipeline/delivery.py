"""The one path a link takes to become a video in Telegram, for every job that delivers one.

guard → scrape (cached) → sent by file_id when Telegram has the video → size check (too large
even compressed, or over the download cap: refused before a byte) → one shared download, made
playable or compressed to fit by the downloader → size check on the bytes → upload with a
thumbnail → the file_id recorded and the bytes released. What is a job's own stays behind two
ports: its `Destination` (where the video goes, and what a long or too large video means there)
and its `Report` (`report`: what the chat hears on the way). A video whose chat is busy for a
while (Telegram's pacing) comes back later (`Deferred`) instead of holding a worker.
"""

from __future__ import annotations

import sys
from contextlib import AbstractAsyncContextManager, nullcontext
from pathlib import Path
from typing import Protocol

from returns.result import Failure, Result, Success

from core.blob_names import blob_key
from core.jobs.registry import Deferred, JobFailure, JobOutcome
from core.media.blob_service import BlobService, Fetcher
from core.media.fit import SizeLimits, SizeVerdict, verdict_before_download
from core.pipeline.failures import api_failure, no_video, refused, tool_failure, vanished
from core.pipeline.report import Report
from core.pipeline.services import PipelineConfig, Services
from core.telegram_errors import ApiVerdict, classify_telegram, is_wrong_file_id
from ports.blobs import BlobRecord
from ports.clock import Clock
from ports.media import OutputSink, ToolFailure, VideoInfo
from ports.messenger import (
    AudioFile,
    MessengerError,
    SentVideo,
    StoredAudio,
    StoredVideo,
    VideoFile,
    VideoMeta,
)

Sent = Result[SentVideo | None, MessengerError]
Outgoing = VideoFile | StoredVideo | AudioFile | StoredAudio


class Paced(Protocol):
    def not_before(self, outgoing: Outgoing) -> float | None:
        """When to come back if sending `outgoing` would wait for its chat's turn longer than a
        worker should (Telegram's pacing, see `turns`); None: it may go now."""
        ...


class Destination(Paced, Protocol):
    """Where the video goes."""

    async def hold(self, duration: float | None, pinned_key: str | None) -> JobOutcome | None:
        """An outcome when the video must not go yet (a group is asked about a long video first);
        `pinned_key`: bytes already on disk that the wait must keep."""
        ...

    async def too_large(self, size: int) -> JobOutcome: ...

    async def send(self, video: VideoFile | StoredVideo, meta: VideoMeta) -> SentVideo | None:
        """Raises MessengerError. None: nothing needed sending, the stored file_id is all it takes."""
        ...

    async def delivered(self, file_id: str, record: BlobRecord) -> JobOutcome:
        """Telegram has the video as `file_id`, recorded already: the job's last step."""
        ...


class Delivery:
    def __init__(self, services: Services, config: PipelineConfig) -> None:
        self._s = services
        self._limit = config.upload_limit_bytes
        self._timeout = config.ytdlp_timeout_seconds
        self._limits = SizeLimits(
            upload_bytes=config.upload_limit_bytes,
            download_bytes=config.max_download_bytes or sys.maxsize,
        )

    async def videos(self, url: str, report: Report) -> Result[list[VideoInfo], JobFailure]:
        """The videos behind `url` (photo items left out), if the bot may fetch it; never none."""
        allowed = await self._s.guard.check(url)
        if isinstance(allowed, Failure):
            return Failure(refused(allowed.failure()))
        scraped = await self._scrape(url, report)
        if isinstance(scraped, Failure):
            return Failure(tool_failure(scraped.failure()))
        videos = [e for e in scraped.unwrap() if e.has_video]
        return Success(videos) if videos else Failure(no_video())

    async def _scrape(self, url: str, report: Report) -> Result[list[VideoInfo], ToolFailure]:
        """Cached entries without a word to the chat (a cache hit is just the video)."""
        cached = None if report.verbose else await self._s.info.cached(url)
        if cached:
            return Success(cached)
        await report.scraping()
        return await self._s.info.scrape(
            url,
            timeout=self._timeout,
            bypass_cache=report.verbose,
            verbose=report.verbose,
            on_output=output_of(report),
        )

    async def deliver(self, info: VideoInfo, to: Destination, report: Report) -> JobOutcome:
        key = blob_key(info)
        record = await self._s.blobs.find(key)
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
            sent = await _send(to, stored, record, info, report)
            if not (isinstance(sent, Failure) and is_wrong_file_id(sent.failure())):
                return await self._after_send(to, record, sent, record.file_id, report)
            await self._s.blobs.clear_file_id(key)
        verdict = verdict_before_download(info.filesize, info.duration, info.height, self._limits)
        if verdict is SizeVerdict.TOO_LARGE:
            await report.ending()
            return await to.too_large(info.filesize or 0)
        await report.downloading()
        async with self._s.blobs.holding(key):
            fetched = await fetch_bytes(self._s.blobs, info, self._s.downloader, self._timeout, report, to)
            if not isinstance(fetched, BlobRecord):
                return fetched
            return await self._upload(info, fetched, to, report)

    async def _upload(
        self, info: VideoInfo, record: BlobRecord, to: Destination, report: Report
    ) -> JobOutcome:
        size = record.size or 0
        if (refused := await refuse_oversize(self._s.blobs, record, self._limit, report, to)) is not None:
            return refused
        if info.duration is None and (held := await to.hold(record.duration, record.key)) is not None:
            return held  # the probe measured a duration the scrape did not know
        path = self._s.blobs.path_of(record)
        if path is None:
            return Failure(vanished())
        upload = VideoFile(path)
        if (later := to.not_before(upload)) is not None:
            return Success(Deferred(later))  # the bytes stay on disk for the next turn
        await report.uploading(size)
        async with self._thumbnail(path, record.duration) as thumbnail:
            sent = await _send(to, upload, record, info, report, thumbnail)
        return await self._after_send(to, record, sent, None, report)

    def _thumbnail(self, path: Path, duration: float | None) -> AbstractAsyncContextManager[Path | None]:
        if self._s.thumbnails is None:
            return nullcontext(None)
        return self._s.thumbnails.of(path, duration)

    async def _after_send(
        self, to: Destination, record: BlobRecord, sent: Sent, stored_file_id: str | None, report: Report
    ) -> JobOutcome:
        return await after_send(self._s.blobs, self._s.clock, to, record, sent, stored_file_id, report)


class TooLarge(Protocol):
    async def too_large(self, size: int) -> JobOutcome: ...


async def fetch_bytes(
    blobs: BlobService, info: VideoInfo, fetcher: Fetcher, timeout: float, report: Report, to: TooLarge
) -> BlobRecord | JobOutcome:
    """The bytes of `info` on disk (one shared download), or the job's outcome when they cannot
    be had: too large (over the download cap), or a failed run."""
    fetched = await blobs.fetch(
        info,
        fetcher,
        timeout=timeout,
        verbose=report.verbose,
        on_progress=report.progress,
        on_output=output_of(report),
    )
    if not isinstance(fetched, Failure):
        return fetched.unwrap()
    failure = fetched.failure()
    if failure.too_large_bytes is not None:
        await report.ending()
        return await to.too_large(failure.too_large_bytes)
    return Failure(tool_failure(failure))


async def refuse_oversize(
    blobs: BlobService, record: BlobRecord, limit: int, report: Report, to: TooLarge
) -> JobOutcome | None:
    """The bytes are over the upload limit after all: they go, and `to` says so."""
    size = record.size or 0
    if size <= limit:
        return None
    await blobs.release(record.key)
    await report.ending()
    return await to.too_large(size)


class SentFile(Protocol):
    """What Telegram answers an upload with (a video's, or an audio's)."""

    @property
    def file_id(self) -> str: ...

    @property
    def file_unique_id(self) -> str: ...


class Delivered(Protocol):
    async def delivered(self, file_id: str, record: BlobRecord) -> JobOutcome: ...


async def after_send(
    blobs: BlobService,
    clock: Clock,
    to: Delivered,
    record: BlobRecord,
    sent: Result[SentFile | None, MessengerError],
    stored_file_id: str | None,
    report: Report,
) -> JobOutcome:
    """Record the file_id of what was uploaded, release the bytes, and let `to` end the job; a
    refused send is the job's failure. `stored_file_id`: what a send by file_id went out as."""
    if isinstance(sent, Failure):
        return not_sent(sent.failure(), clock)
    report.sent(record.size)
    uploaded = sent.unwrap()
    if uploaded is not None:
        await blobs.record_sent(record.key, uploaded.file_id, uploaded.file_unique_id)
    file_id = uploaded.file_id if uploaded is not None else stored_file_id
    if file_id is None:
        raise TypeError("a destination must return the sent file for an upload")
    await blobs.release(record.key)
    return await to.delivered(file_id, record)


def not_sent(error: MessengerError, clock: Clock) -> JobOutcome:
    """Telegram's "retry after" is nobody's fault: the job waits in the queue, its attempt kept."""
    if classify_telegram(error) is ApiVerdict.RETRY_AFTER:
        return Success(Deferred(clock.now() + (error.retry_after or 1.0)))
    return Failure(api_failure(error))


def video_meta(
    record: BlobRecord, info: VideoInfo, caption: str | None, thumbnail: Path | None = None
) -> VideoMeta:
    duration = record.duration if record.duration is not None else info.duration
    return VideoMeta(
        duration=round(duration) if duration is not None else None,
        width=record.width or info.width,
        height=record.height or info.height,
        caption=caption,
        thumbnail=thumbnail,
    )


async def _send(
    to: Destination,
    video: VideoFile | StoredVideo,
    record: BlobRecord,
    info: VideoInfo,
    report: Report,
    thumbnail: Path | None = None,
) -> Sent:
    await report.sending()
    try:
        return Success(await to.send(video, video_meta(record, info, caption=None, thumbnail=thumbnail)))
    except MessengerError as error:
        report.unsent()
        return Failure(error)


def output_of(report: Report) -> OutputSink | None:
    return report.output if report.verbose else None
