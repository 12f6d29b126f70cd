"""`download_video`: a link in a chat becomes the video in that chat.

Scrape (cached) → a multi-video post fans out into one child job per video → a video Telegram
already has is sent by file_id → size and length checks → one shared download → upload → the
file_id is recorded and the bytes released. Every failure is classified here and returned as a
value; the engine decides about retrying, this module only reports (⚠️ per retry, 💥 at the end,
a reaction in groups).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

from returns.result import Failure, Result, Success

from core import texts
from core.blobs import blob_key
from core.chat.log_message import JobLog, LogMessage, LogState, SilentLog
from core.classify import ApiVerdict, FailureKind, classify_telegram, classify_ytdlp, is_wrong_file_id
from core.jobs.registry import DeadJob, JobContext, JobFailure, JobOutcome, RetryNotice
from core.media.blob_store import BlobStore
from core.media.info_cache import InfoService
from core.pipeline.confirm import CANCEL, CONFIRM
from core.pipeline.request import DownloadRequest
from core.pipeline.url_guard import UrlGuard
from core.trust.buttons import SignedButton, SignedButtons
from core.trust.callback_data import ButtonRef
from ports.blobs import BlobRecord
from ports.caches import HandledUrls
from ports.clock import Clock
from ports.errors import ShutdownAbort
from ports.jobs import Guard, HandledUrlGuard, NewJob
from ports.json import Payload
from ports.media import Downloader, ToolFailure, VideoInfo
from ports.messenger import Messenger, MessengerError, StoredVideo, VideoFile, VideoMeta
from ports.pending import PendingRequest, PendingStore

log = logging.getLogger("vidrelay.download")

DOWNLOAD_VIDEO = "download_video"
MAX_ENTRIES = 10


class JobSubmitter(Protocol):
    async def submit(
        self,
        name: str,
        payload: Payload,
        *,
        key: str = "",
        owner_id: int | None = None,
        guard: Guard | None = None,
    ) -> int | None: ...


@dataclass(frozen=True, slots=True)
class PipelineConfig:
    upload_limit_bytes: int = 50 * 1024 * 1024
    confirm_longer_than_seconds: float = 1200.0
    ytdlp_timeout_seconds: float = 300.0
    max_attempts: int = 3


@dataclass(frozen=True, slots=True)
class Services:
    info: InfoService
    blobs: BlobStore
    downloader: Downloader
    messenger: Messenger
    pending: PendingStore
    handled: HandledUrls
    guard: UrlGuard
    clock: Clock
    jobs: JobSubmitter
    new_id: Callable[[], str]
    buttons: SignedButtons


def site_key(url: str) -> str:
    """The circuit-breaker key of a link: its host, without a leading www."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        host = ""
    return host.lower().removeprefix("www.")


class DownloadVideo:
    def __init__(self, services: Services, config: PipelineConfig) -> None:
        self._s = services
        self._config = config

    # The job ---------------------------------------------------------------------------------

    async def run(self, context: JobContext) -> JobOutcome:
        try:
            request = DownloadRequest.from_payload(context.payload)
        except ValueError as error:
            return Failure(JobFailure(f"bad job payload: {error}", permanent=True))
        job_log = self._log_for(request)
        if context.attempt > request.reported_attempt:
            job_log.append(texts.retrying(context.attempt, context.max_attempts))  # the last one crashed
            request.reported_attempt = context.attempt
        outcome: JobOutcome | None = None
        try:
            outcome = await self._deliver(request, job_log, context)
            return outcome
        finally:
            await job_log.close()
            if not isinstance(outcome, Success):  # a retry or the 💥 report appends to this log
                await self._checkpoint(context, request, job_log)

    async def _checkpoint(self, context: JobContext, request: DownloadRequest, job_log: JobLog) -> None:
        """Deliver the log and persist where it is: if the process dies now, the next attempt
        appends to this same message instead of starting another."""
        await job_log.flush()
        request.log = job_log.state.to_json()
        context.payload.update(request.to_payload())
        await context.save()

    async def _deliver(self, request: DownloadRequest, job_log: JobLog, context: JobContext) -> JobOutcome:
        allowed = await self._s.guard.check(request.url)
        if isinstance(allowed, Failure):
            return Failure(JobFailure(f"refused: {allowed.failure()}", permanent=True, code="refused"))
        scraped = await self._scrape(request, job_log, context)
        if isinstance(scraped, Failure):
            return tool_failure(scraped.failure())
        entries = [e for e in scraped.unwrap() if e.has_video]
        if request.entry_index is None and len(entries) > 1:
            return await self._fan_out(request, entries, job_log)
        index = request.entry_index or 0
        if index >= len(entries):
            return Failure(JobFailure("No video found at this link", permanent=True, code="not_a_video"))
        return await self._deliver_entry(request, entries[index], job_log, context)

    async def _scrape(
        self, request: DownloadRequest, job_log: JobLog, context: JobContext
    ) -> Result[list[VideoInfo], ToolFailure]:
        """Cached entries without a word to the chat (a cache hit is just the video); otherwise
        a scrape the log message announces."""
        cached = None if request.verbose else await self._s.info.cached(request.url)
        if cached:
            return Success(cached)
        if not request.info_shown:
            job_log.append(("\n" if job_log.state.text else "") + texts.scraping())
            await self._checkpoint(context, request, job_log)
        return await self._s.info.scrape(
            request.url,
            timeout=self._config.ytdlp_timeout_seconds,
            bypass_cache=request.verbose,
            verbose=request.verbose,
            on_output=self._output_sink(request, job_log),
        )

    async def _deliver_entry(
        self, request: DownloadRequest, info: VideoInfo, job_log: JobLog, context: JobContext
    ) -> JobOutcome:
        key = blob_key(info)
        record = await self._s.blobs.find(key)
        known_duration = info.duration if info.duration is not None else record.duration if record else None
        if self._needs_confirmation(request, known_duration):
            # Asked even when Telegram has it: the question is about the group's screen, not bandwidth.
            pinned = key if record is not None and record.file_name is not None else None
            return await self._ask_first(request, known_duration or 0.0, pinned)
        if record is not None and record.file_id is not None:
            sent = await self._send(request, StoredVideo(record.file_id), record, info)
            if not _wrong_file_id(sent):
                return await self._after_send(key, sent)
            await self._s.blobs.clear_file_id(key)
        if not request.info_shown:
            job_log.append(texts.video_info(info))
            request.info_shown = True
            context.payload.update(request.to_payload())
        if info.filesize is not None and info.filesize > self._config.upload_limit_bytes:
            return await self._too_large(request, info.filesize)
        job_log.append(texts.downloading())
        await self._checkpoint(context, request, job_log)
        fetched = await self._s.blobs.fetch(
            info,
            self._s.downloader,
            timeout=self._config.ytdlp_timeout_seconds,
            verbose=request.verbose,
            on_progress=lambda p: job_log.progress(texts.progress_line(p)),
            on_output=self._output_sink(request, job_log),
        )
        if isinstance(fetched, Failure):
            return tool_failure(fetched.failure())
        return await self._upload(request, info, fetched.unwrap(), job_log)

    async def _upload(
        self, request: DownloadRequest, info: VideoInfo, record: BlobRecord, job_log: JobLog
    ) -> JobOutcome:
        size = record.size or 0
        if size > self._config.upload_limit_bytes:
            await self._s.blobs.release(record.key)
            return await self._too_large(request, size)
        if info.duration is None and self._needs_confirmation(request, record.duration):
            return await self._ask_first(request, record.duration or 0.0, record.key)
        path = self._s.blobs.path_of(record)
        if path is None:
            return Failure(JobFailure("the downloaded file vanished before the upload"))
        job_log.append(texts.uploading(size))
        await job_log.flush()
        sent = await self._send(request, VideoFile(path), record, info)
        return await self._after_send(record.key, sent)

    async def _send(
        self, request: DownloadRequest, video: VideoFile | StoredVideo, record: BlobRecord, info: VideoInfo
    ) -> Result[tuple[str, str], MessengerError]:
        meta = video_meta(record, info, caption=None)
        try:
            sent = await self._s.messenger.send_video(
                request.chat_id, video, meta, reply_to=request.message_id
            )
        except MessengerError as error:
            if error.migrate_to_chat_id is None or error.migrate_to_chat_id == request.chat_id:
                return Failure(error)
            # The group became a supergroup while the job waited: same people, new chat id.
            request.chat_id = error.migrate_to_chat_id
            return await self._send(request, video, record, info)
        return Success((sent.file_id, sent.file_unique_id))

    async def _after_send(self, key: str, sent: Result[tuple[str, str], MessengerError]) -> JobOutcome:
        if isinstance(sent, Failure):
            return Failure(api_failure(sent.failure()))
        file_id, unique_id = sent.unwrap()
        await self._s.blobs.record_sent(key, file_id, unique_id)
        await self._s.blobs.release(key)
        return Success(None)

    # Branches --------------------------------------------------------------------------------

    async def _fan_out(
        self, request: DownloadRequest, entries: list[VideoInfo], job_log: JobLog
    ) -> JobOutcome:
        for index, _ in enumerate(entries[:MAX_ENTRIES]):
            child = DownloadRequest(
                url=request.url,
                chat_id=request.chat_id,
                chat_type=request.chat_type,
                message_id=request.message_id,
                user_id=request.user_id,
                verbose=request.verbose,
                entry_index=index,
                confirmed=request.confirmed,
            )
            # The guard makes a re-run of this discovery (after a crash) enqueue each child once.
            guard = HandledUrlGuard(request.chat_id, request.message_id, f"{request.url}#entry={index}")
            await self._s.jobs.submit(
                DOWNLOAD_VIDEO, child.to_payload(), key=site_key(request.url), guard=guard
            )
        if len(entries) > MAX_ENTRIES:
            await self._say(request, texts.MORE_THAN_TEN)
        job_log.append(f"\n📦 {min(len(entries), MAX_ENTRIES)} videos found, sending each one.")
        return Success(None)

    def _needs_confirmation(self, request: DownloadRequest, duration: float | None) -> bool:
        return (
            not request.private
            and not request.confirmed
            and duration is not None
            and duration > self._config.confirm_longer_than_seconds
        )

    async def _ask_first(
        self, request: DownloadRequest, duration: float, pinned_key: str | None
    ) -> JobOutcome:
        """Park the request; the prompt's buttons adopt or cancel it (one atomic claim)."""
        pending_id = self._s.new_id()
        confirmed = DownloadRequest(
            url=request.url,
            chat_id=request.chat_id,
            chat_type=request.chat_type,
            message_id=request.message_id,
            user_id=request.user_id,
            entry_index=request.entry_index,
            confirmed=True,
        )
        job = confirmed_job(confirmed, self._config.max_attempts)
        await self._s.pending.park(
            PendingRequest(
                pending_id,
                request.chat_id,
                request.user_id,
                request.message_id,
                job,
                pinned_key,
                self._s.clock.now(),
            )
        )
        buttons = [
            [
                SignedButton(texts.LONG_VIDEO_YES, ButtonRef(CONFIRM, pending_id)),
                SignedButton(texts.LONG_VIDEO_NO, ButtonRef(CANCEL, pending_id)),
            ]
        ]
        try:
            await self._s.buttons.post(
                self._s.messenger,
                request.chat_id,
                texts.long_video_prompt(duration),
                buttons,
                reply_to=request.message_id,
            )
        except MessengerError as error:
            # Nobody can answer a prompt that is not there; the retry parks and asks anew.
            await self._s.pending.cancel(pending_id, request.user_id)
            return Failure(api_failure(error))
        return Success(None)

    async def _too_large(self, request: DownloadRequest, size: int) -> JobOutcome:
        await self._reopen(request)
        await self._say(request, texts.too_large(size))
        return Success(None)

    async def _say(self, request: DownloadRequest, text: str) -> None:
        try:
            await self._s.messenger.send_text(request.chat_id, text, reply_to=request.message_id)
        except MessengerError as error:
            log.warning("could not tell the chat: %s", error.description, extra={"chat_id": request.chat_id})

    async def _reopen(self, request: DownloadRequest) -> None:
        """Editing the message may retry this link later."""
        await self._s.handled.forget_handled(request.chat_id, request.message_id, request.url)

    # Reporting -------------------------------------------------------------------------------

    def _log_for(self, request: DownloadRequest) -> JobLog:
        state = LogState.from_json(request.log)
        if not request.private:
            return SilentLog(state)
        return LogMessage(self._s.messenger, self._s.clock, request.chat_id, request.message_id, state)

    def _output_sink(self, request: DownloadRequest, job_log: JobLog) -> Callable[[str], None] | None:
        if not request.verbose:
            return None

        def show(line: str) -> None:
            job_log.append(texts.output_chunk(line))
            job_log.progress("")

        return show

    async def on_retry(self, notice: RetryNotice) -> None:
        request = DownloadRequest.from_payload(notice.context.payload)
        job_log = self._log_for(request)
        job_log.append(texts.retrying(notice.next_attempt, notice.context.max_attempts))
        await job_log.close()
        request.log = job_log.state.to_json()
        request.reported_attempt = notice.next_attempt
        notice.context.payload.update(request.to_payload())
        await notice.context.save()

    async def on_dead(self, dead: DeadJob) -> None:
        try:
            request = DownloadRequest.from_payload(dead.job.payload)
        except ValueError:
            return
        await self._reopen(request)
        code = dead.failure.code if dead.failure else ""
        if request.private:
            job_log = self._log_for(request)
            job_log.append(texts.failed(dead.reason))
            await job_log.close()
        elif code != FailureKind.NOT_A_VIDEO.value and not request.confirmed:
            await self._react(request)
        elif request.confirmed:
            await self._say(request, texts.failed(dead.reason).lstrip("\n"))

    async def _react(self, request: DownloadRequest) -> None:
        try:
            await self._s.messenger.react(request.chat_id, request.message_id, texts.FAILURE_REACTION)
        except MessengerError as error:
            log.warning("could not react: %s", error.description, extra={"chat_id": request.chat_id})


def confirmed_job(request: DownloadRequest, max_attempts: int) -> NewJob:
    return NewJob(
        DOWNLOAD_VIDEO,
        request.to_payload(),
        max_attempts,
        key=site_key(request.url),
        owner_id=request.user_id,
    )


def video_meta(record: BlobRecord, info: VideoInfo, caption: str | None) -> VideoMeta:
    duration = record.duration if record.duration is not None else info.duration
    return VideoMeta(
        duration=round(duration) if duration is not None else None,
        width=record.width or info.width,
        height=record.height or info.height,
        caption=caption,
    )


def tool_failure(failure: ToolFailure) -> JobOutcome:
    if failure.aborted:
        raise ShutdownAbort("yt-dlp stopped for shutdown")
    verdict = classify_ytdlp(failure)
    return Failure(
        JobFailure(
            verdict.reason,
            permanent=verdict.kind.permanent,
            detail=failure.stderr_tail[-4000:] or None,
            code=verdict.kind.value,
        )
    )


def api_failure(error: MessengerError) -> JobFailure:
    verdict = classify_telegram(error)
    reason = f"Telegram refused the video: {error.description}"
    if verdict is ApiVerdict.RETRY_AFTER:
        return JobFailure(reason, retry_after=error.retry_after or 1.0, code="flood")
    return JobFailure(reason, permanent=verdict is ApiVerdict.PERMANENT, code="telegram")


def _wrong_file_id(sent: Result[tuple[str, str], MessengerError]) -> bool:
    return isinstance(sent, Failure) and is_wrong_file_id(sent.failure())
