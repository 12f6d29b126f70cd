"""`download_video`: a link in a chat becomes the video in that chat.

The path itself is the shared `Delivery` (`AudioDelivery` for the sound, `FileDelivery` for a chat
that chose "send as file"); this job adds what is
its own: a multi-video post fans out into one child job per video, the video goes to the user's
chat (`ChatDestination`), and the chat hears about it in the job's log message (`ChatReport`).
Every failure is returned as a value; the engine decides about retrying, this job only reports
(⚠️ per retry, 💥 at the end, a reaction in groups: `RetryReporting`).
"""

from __future__ import annotations

import logging

from returns.result import Failure, Success

from core.jobs.context import JobContext
from core.jobs.fields import log_fields
from core.jobs.hooks import CancelledJob, DeadJob, RetryNotice
from core.jobs.outcome import JobOutcome
from core.requests.download import DownloadRequest
from core.work.delivery.audio import AudioDelivery
from core.work.delivery.document import AS_VIDEO, FileDelivery
from core.work.delivery.failures import bad_payload, no_video
from core.work.delivery.outage import TelegramOutages
from core.work.delivery.video import Delivery
from core.work.download.chat_destination import ChatDestinations
from core.work.download.chat_report import ChatReport, ChatReports
from core.work.download.fan_out import fan_out
from core.work.download.retries import RetryReporting
from ports.formats import FormatChoice

log = logging.getLogger("vidrelay.download")


class DownloadVideo:
    def __init__(
        self,
        *,
        delivery: Delivery,
        audio: AudioDelivery,
        files: FileDelivery,
        destinations: ChatDestinations,
        reports: ChatReports,
        formats: FormatChoice,
        retries: RetryReporting,
        outages: TelegramOutages,
    ) -> None:
        """`formats`: a smaller format, for the chats that chose a quality; `outages`: a delivery
        that cannot reach Telegram waits for it."""
        self._delivery = delivery
        self._audio = audio
        self._files = files
        self._destinations = destinations
        self._reports = reports
        self._formats = formats
        self._retries = retries
        self._outages = outages

    async def run(self, context: JobContext) -> JobOutcome:
        try:
            request = DownloadRequest.from_payload(context.payload)
        except ValueError as error:
            return Failure(bad_payload(error))
        report = self._reports.for_attempt(request, context)
        if report.delivered:
            log.warning(
                "the video went out before the last attempt ended: not sent again",
                extra=log_fields(context.job),
            )
            await report.sent(None)  # the log message ends on ✅, if the crash came before it did
            await report.finish(Success(None))
            return Success(None)
        report.attempt_started()
        outcome: JobOutcome | None = None
        try:
            outcome = await self._outages.settle(context, await self._deliver(request, report, context))
            return outcome
        finally:
            await report.finish(outcome)

    async def _deliver(self, request: DownloadRequest, report: ChatReport, context: JobContext) -> JobOutcome:
        destination = self._destinations.for_request(request, context.fence)
        videos = await self._delivery.videos(request.url, report)
        if isinstance(videos, Failure):
            return videos
        entries = videos.unwrap()
        if request.entry_index is None and len(entries) > 1:
            return await fan_out(request, entries, context.jobs, destination.replies, report)
        index = request.entry_index or 0
        if index >= len(entries):
            return Failure(no_video())
        if request.audio:
            return await self._audio.deliver(entries[index], destination, report)
        info = entries[index]
        if request.max_height is not None:
            # The chat's quality picks the format, and with it the blob key: no chat gets another's file.
            info = self._formats.within_height(info, request.max_height)
        if request.as_file and (sent := await self._files.deliver(info, destination, report)) is not AS_VIDEO:
            return sent
        return await self._delivery.deliver(info, destination, report)

    async def on_retry(self, notice: RetryNotice) -> None:
        await self._retries.on_retry(notice)

    async def on_dead(self, dead: DeadJob) -> None:
        await self._retries.on_dead(dead)

    async def on_cancel(self, cancelled: CancelledJob) -> None:
        await self._retries.on_cancel(cancelled)
