"""What a download job says on the way: the private chat's log message, silent in groups.

Where the log stands travels in the job's payload, checkpointed before every slow step: if the
process dies during it, the next attempt appends to this same message instead of starting another.
"""

from __future__ import annotations

from core import texts
from core.chat.log_message import JobLog, LogMessage, LogState, SilentLog
from core.jobs.registry import JobContext
from core.pipeline.delivery import Report
from core.pipeline.request import DownloadRequest
from ports.clock import Clock
from ports.media import Progress, VideoInfo
from ports.messenger import Messenger


def log_for(request: DownloadRequest, messenger: Messenger, clock: Clock) -> JobLog:
    state = LogState.from_json(request.log)
    if not request.private:
        return SilentLog(state)
    return LogMessage(messenger, clock, request.chat_id, request.message_id, state)


class ChatReport(Report):
    def __init__(self, request: DownloadRequest, log: JobLog, context: JobContext) -> None:
        self._request = request
        self._log = log
        self._context = context

    @property
    def verbose(self) -> bool:
        return self._request.verbose

    def attempt_started(self) -> None:
        """An attempt the log has not announced: the one before it crashed the process."""
        if self._context.attempt > self._request.reported_attempt:
            self._log.append(texts.retrying(self._context.attempt, self._context.max_attempts))
            self._request.reported_attempt = self._context.attempt

    def note(self, html: str) -> None:
        self._log.append(html)

    async def scraping(self) -> None:
        if not self._request.info_shown:
            self._log.append(("\n" if self._log.state.text else "") + texts.scraping())
            await self.checkpoint()

    def found(self, info: VideoInfo) -> None:
        if not self._request.info_shown:
            self._log.append(texts.video_info(info))
            self._request.info_shown = True
            self._context.payload.update(self._request.to_payload())

    async def downloading(self) -> None:
        self._log.append(texts.downloading())
        await self.checkpoint()

    def progress(self, progress: Progress) -> None:
        self._log.progress(texts.progress_line(progress))

    def output(self, line: str) -> None:
        self._log.append(texts.output_chunk(line))
        self._log.progress("")

    async def uploading(self, size: int) -> None:
        self._log.append(texts.uploading(size))
        await self._log.flush()

    async def finish(self, delivered: bool) -> None:
        """Close the log; unless the video went out, keep where it is for a retry or the 💥 report."""
        await self._log.close()
        if not delivered:
            await self.checkpoint()

    async def checkpoint(self) -> None:
        await self._log.flush()
        self._request.log = self._log.state.to_json()
        self._context.payload.update(self._request.to_payload())
        await self._context.save()
