"""`download_video`: a link in a chat becomes the video in that chat.

The path itself is the shared `Delivery`; this job adds what is its own: a multi-video post fans
out into one child job per video, the video goes to the user's chat (`ChatDestination`), and the
chat hears about it in the job's log message (`ChatReport`). Every failure is returned as a value;
the engine decides about retrying, this job only reports (⚠️ per retry, 💥 at the end, a reaction
in groups).
"""

from __future__ import annotations

from returns.result import Failure

from core.jobs.registry import DeadJob, JobContext, JobOutcome, RetryNotice
from core.jobs.submitter import JobSubmitter
from core.pipeline.audio_delivery import AudioDelivery
from core.pipeline.chat_destination import ChatDestination
from core.pipeline.chat_report import ChatReport
from core.pipeline.delivery import Delivery
from core.pipeline.failures import bad_payload, no_video
from core.pipeline.fan_out import fan_out
from core.pipeline.parking import Parking
from core.pipeline.replies import Replies
from core.pipeline.request import DownloadRequest
from core.pipeline.retries import RetryReporting
from core.pipeline.services import PipelineConfig, Services


class DownloadVideo:
    def __init__(self, services: Services, config: PipelineConfig) -> None:
        self._s = services
        self._config = config
        self._delivery = Delivery(services, config)
        self._audio = AudioDelivery(services, config)
        self._replies = Replies(services.messenger, services.handled)
        self._parking = Parking(
            services.pending,
            services.messenger,
            services.buttons,
            services.clock,
            services.new_id,
            config.max_attempts,
        )
        self._retries = RetryReporting(services.logs, services.clock, self._replies)

    async def run(self, context: JobContext) -> JobOutcome:
        try:
            request = DownloadRequest.from_payload(context.payload)
        except ValueError as error:
            return Failure(bad_payload(error))
        report = ChatReport(request, self._s.logs, context, self._config.upload_limit_bytes)
        report.attempt_started()
        outcome: JobOutcome | None = None
        try:
            outcome = await self._deliver(request, report, context.jobs)
            return outcome
        finally:
            await report.finish(outcome)

    async def _deliver(self, request: DownloadRequest, report: ChatReport, jobs: JobSubmitter) -> JobOutcome:
        videos = await self._delivery.videos(request.url, report)
        if isinstance(videos, Failure):
            return videos
        entries = videos.unwrap()
        if request.entry_index is None and len(entries) > 1:
            return await fan_out(request, entries, jobs, self._replies, report)
        index = request.entry_index or 0
        if index >= len(entries):
            return Failure(no_video())
        destination = ChatDestination(
            request,
            self._s.messenger,
            self._parking,
            self._replies,
            self._s.turns,
            self._config.confirm_longer_than_seconds,
            self._s.deliveries,
            self._s.clock,
        )
        if request.audio:
            return await self._audio.deliver(entries[index], destination, report)
        info = entries[index]
        if request.max_height is not None:
            # The chat's quality picks the format, and with it the blob key: no chat gets another's file.
            info = self._s.formats.within_height(info, request.max_height)
        return await self._delivery.deliver(info, destination, report)

    async def on_retry(self, notice: RetryNotice) -> None:
        await self._retries.on_retry(notice)

    async def on_dead(self, dead: DeadJob) -> None:
        await self._retries.on_dead(dead)
