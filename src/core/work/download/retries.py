"""What the chat hears when an attempt of `download_video` failed: ⚠️ before the next attempt,
and at the end 💥 in a private chat, a reaction in a group ("not a video" stays silent there);
and when its user cancelled it while it ran, 🚫 (a group heard from /cancel itself)."""

from __future__ import annotations

from core import texts
from core.jobs.hooks import CancelledJob, DeadJob, RetryNotice
from core.jobs.tasks import first_of
from core.log_message.views import LogViews
from core.requests.download import DownloadRequest
from core.work.download.chat_report import log_view
from core.work.download.replies import Replies
from core.ytdlp_errors import FailureKind
from ports.clock import Clock

LAST_WORD_WAIT_SECONDS = 30.0
"""💥 is the user's only news of the failure: the hook waits this long for it to be shown."""


class RetryReporting:
    def __init__(self, logs: LogViews, clock: Clock, replies: Replies) -> None:
        self._logs = logs
        self._clock = clock
        self._replies = replies

    async def on_retry(self, notice: RetryNotice) -> None:
        request = DownloadRequest.from_payload(notice.context.payload)
        words = self._replies.words(request)
        view = log_view(request, self._logs, notice.context.job.id, words)
        view.line(words.retrying(notice.next_attempt, notice.context.max_attempts))
        request.log = view.state.to_json()
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
        words = self._replies.words(request)
        if request.private:
            view = log_view(request, self._logs, dead.job.id, words)
            view.line(words.failed(dead.reason))
            view.settle()
            await first_of(view.shown_all(), self._clock.sleep(LAST_WORD_WAIT_SECONDS))
        elif code != FailureKind.NOT_A_VIDEO.value and not request.confirmed:
            await self._replies.react(request)
        elif request.confirmed:
            await self._replies.say(request, words.failed(dead.reason).lstrip("\n"))

    async def on_cancel(self, cancelled: CancelledJob) -> None:
        try:
            request = DownloadRequest.from_payload(cancelled.job.payload)
        except ValueError:
            return
        if request.private:
            words = self._replies.words(request)
            view = log_view(request, self._logs, cancelled.job.id, words)
            view.settle(words.say(texts.CANCELLED))
            await first_of(view.shown_all(), self._clock.sleep(LAST_WORD_WAIT_SECONDS))
