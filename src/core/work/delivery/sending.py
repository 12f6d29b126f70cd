"""The steps the video and the sound share on their way: the bytes fetched once, refused when
too large, sent, and what was sent recorded."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol, TypeVar

from returns.result import Failure, Result, Success

from core.jobs.outcome import Deferred, JobOutcome
from core.media.blob_service import BlobService, Fetcher
from core.telegram_errors import ApiVerdict, classify_telegram
from core.work.delivery.destination import Delivered, TooLarge
from core.work.delivery.failures import api_failure, tool_failure
from core.work.delivery.report import Report
from ports.blobs import BlobRecord
from ports.clock import Clock
from ports.errors import StoreError
from ports.media import OutputSink, VideoInfo
from ports.messenger import MessengerError, VideoMeta

log = logging.getLogger("vidrelay.jobs")
T = TypeVar("T")


class SentFile(Protocol):
    """What Telegram answers an upload with (a video's, or an audio's)."""

    @property
    def file_id(self) -> str: ...

    @property
    def file_unique_id(self) -> str: ...


async def fetch_bytes(
    blobs: BlobService,
    info: VideoInfo,
    fetcher: Fetcher,
    timeout: float,
    report: Report,
    to: TooLarge,
    key: str | None = None,
) -> BlobRecord | JobOutcome:
    """The bytes of `info` on disk (one shared download; `key`: kept as that blob, not the video's
    own), or the job's outcome when they cannot be had: too large (over the download cap), or a
    failed run."""
    fetched = await blobs.fetch(
        info,
        fetcher,
        timeout=timeout,
        verbose=report.verbose,
        on_progress=report.progress,
        on_output=output_of(report),
        key=key,
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


async def send_reported(report: Report, send: Callable[[], Awaitable[T]]) -> Result[T, MessengerError]:
    """`send()` with the report told: nothing it said before may reach the chat after the file."""
    await report.sending()
    try:
        return Success(await send())
    except MessengerError as error:
        report.unsent()
        return Failure(error)


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
    await report.sent(record.size)  # before anything else: the narrowest window for a second copy
    uploaded = sent.unwrap()
    file_id = uploaded.file_id if uploaded is not None else stored_file_id
    if file_id is None:
        raise TypeError("a destination must return the sent file for an upload")
    try:
        if uploaded is not None:
            await blobs.record_sent(record.key, uploaded.file_id, uploaded.file_unique_id)
        await blobs.release(record.key)
    except StoreError as error:
        # The video is out: failing the job now would send it again. What is lost is
        # bookkeeping — the next request for it downloads again, the blob sweep frees the bytes.
        log.warning("the video was sent but the store could not record it", exc_info=error)
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


def output_of(report: Report) -> OutputSink | None:
    return report.output if report.verbose else None
