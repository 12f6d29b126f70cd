"""What the chat hears when an attempt of `download_video` failed: ⚠️ before the next attempt,
and at the end 💥 in a private chat, a reaction in a group ("not a video" stays silent there)."""

from __future__ import annotations

from core import texts
from core.jobs.registry import DeadJob, RetryNotice
from core.pipeline.chat_report import log_for
from core.pipeline.replies import Replies
from core.pipeline.request import DownloadRequest
from core.ytdlp_errors import FailureKind
from ports.clock import Clock
from ports.messenger import Messenger


class RetryReporting:
    def __init__(self, messenger: Messenger, clock: Clock, replies: Replies) -> None:
        self._messenger = messenger
        self._clock = clock
        self._replies = replies

    async def on_retry(self, notice: RetryNotice) -> None:
        request = DownloadRequest.from_payload(notice.context.payload)
        job_log = log_for(request, self._messenger, self._clock)
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
        await self._replies.reopen(request)
        code = dead.failure.code if dead.failure else ""
        if request.private:
            job_log = log_for(request, self._messenger, self._clock)
            job_log.append(texts.failed(dead.reason))
            await job_log.close()
        elif code != FailureKind.NOT_A_VIDEO.value and not request.confirmed:
            await self._replies.react(request)
        elif request.confirmed:
            await self._replies.say(request, texts.failed(dead.reason).lstrip("\n"))
