"""What a download job says on the way: its log message in a private chat, nothing in a group.

The report writes the job's state into the log view (`core.log_message.view`) and never waits for
the chat: the view's sender shows the latest state when Telegram's pacing allows. Where the log
stands travels in the job's payload, saved before every slow step and whenever the view learns a
new message id: if the process dies, the next attempt appends to this same message.

The stages before the upload replace each other (🧐 scraping, ⬇️ downloading, 🚀 uploading):
only the current one is shown. Those that change the video (🎞 converting, 📦 compressing to
fit) stay as lasting lines, so the settled log still says what was done; `progress` shows the
percent of whichever runs. A new stage of that kind is a value of `ports.media.Stage` and its line
in `Words.stage_line`; nothing here changes. Every word is in the language the request carries.
"""

from __future__ import annotations

from returns.result import Failure, Success

from core import texts
from core.jobs.context import JobContext
from core.jobs.outcome import Deferred, JobOutcome
from core.log_message.state import LogState
from core.log_message.view import LogView
from core.log_message.views import LogViews
from core.requests.download import DownloadRequest
from core.texts.words import Words
from core.work.delivery.report import Report
from ports.language import Languages
from ports.media import Progress, Stage, VideoInfo


def log_view(request: DownloadRequest, logs: LogViews, job_id: int, words: Words) -> LogView:
    """The job's live view in a private chat (one this process showed already, or one over where
    the payload says the log stands); in a group a view nobody is shown."""
    state = LogState.from_json(request.log)
    if not request.private:
        return LogViews.unshown(request.log_address, state)
    return logs.open(job_id, request.log_address, state, cancel_label=words.say(texts.BUTTON_CANCEL))


class ChatReports:
    """One `ChatReport` per attempt, over the process's log messages."""

    def __init__(self, *, logs: LogViews, languages: Languages, upload_limit_bytes: int) -> None:
        self._logs = logs
        self._languages = languages
        self._limit = upload_limit_bytes

    def for_attempt(self, request: DownloadRequest, context: JobContext) -> ChatReport:
        words = Words.of(self._languages, request.language)
        return ChatReport(request, self._logs, context, self._limit, words)


class ChatReport(Report):
    def __init__(
        self,
        request: DownloadRequest,
        logs: LogViews,
        context: JobContext,
        upload_limit_bytes: int,
        words: Words,
    ) -> None:
        self._request = request
        self.words = words
        """The words of the request's chat, in its language."""
        self._context = context
        self._limit = upload_limit_bytes
        self._stage = Stage.DOWNLOAD
        state = LogState.from_json(request.log)
        if request.private:
            # The view's edits go out only while this attempt holds its lease (core.jobs.fence).
            fence = context.fence.holds
            cancel = words.say(texts.BUTTON_CANCEL)
            self._view = logs.adopt(
                context.job.id, request.log_address, state, self._save, fence, cancel_label=cancel
            )
        else:
            self._view = LogViews.unshown(request.log_address, state)

    @property
    def verbose(self) -> bool:
        return self._request.verbose

    def attempt_started(self) -> None:
        """An attempt the log has not announced: the one before it crashed the process."""
        if self._context.attempt > self._request.reported_attempt:
            self._view.line(self.words.retrying(self._context.attempt, self._context.max_attempts))
            self._request.reported_attempt = self._context.attempt
            self._context.payload["reported_attempt"] = self._context.attempt

    def note(self, html: str) -> None:
        self._view.line(html)

    def done(self) -> None:
        """Nothing more to show: the job's work goes on elsewhere (one child job per video)."""
        self._view.settle()

    async def scraping(self) -> None:
        if not self._request.info_shown:
            self._view.stage(self.words.say(texts.SCRAPING))
            await self.checkpoint()

    def found(self, info: VideoInfo) -> None:
        if not self._request.info_shown:
            self._view.line(self.words.video_info(info))
            self._request.info_shown = True
            self._context.payload["info_shown"] = True

    async def downloading(self) -> None:
        self._view.stage(self.words.say(texts.DOWNLOADING))
        await self.checkpoint()

    def progress(self, progress: Progress) -> None:
        if progress.stage is not self._stage:
            # Converting or compressing began: a lasting line (the settled log still says what
            # was done to the video), the download's stage is over, the percent goes below it.
            self._stage = progress.stage
            if (line := self.words.stage_line(progress, self._limit)) is not None:
                self._view.line(line)
                self._view.stage("")
        self._view.progress(self.words.progress_line(progress))

    def output(self, line: str) -> None:
        self._view.line(self.words.output_chunk(line))

    async def uploading(self, size: int) -> None:
        self._view.stage(self.words.uploading(size))

    async def sending(self) -> None:
        await self._view.hold()

    def unsent(self) -> None:
        self._view.release()

    async def sent(self, size: int | None) -> None:
        self._view.settle(self.words.sent(size))
        self._request.delivered = True
        self._context.payload["delivered"] = True
        await self.checkpoint()

    @property
    def delivered(self) -> bool:
        """An earlier attempt sent the video, and ended before its job did (a crash)."""
        return self._request.delivered

    async def ending(self) -> None:
        await self._view.end()

    async def finish(self, outcome: JobOutcome | None) -> None:
        """After the attempt: unless the job is done, keep where the log stands for the attempt
        after it (a retry, the next turn of a deferred job, or the 💥 report). An attempt that
        was stopped (its lease lost or run out) writes and says nothing more: another worker may
        hold the job now."""
        if self._context.fence.ended:
            self._view.abandon()
            return
        match outcome:
            case Success(Deferred()):
                self._view.release()
            case Success():
                self._view.settle()  # nothing is left to say (a video, a refusal or a fan-out said it)
                return
            case Failure() | None:
                self._view.release()
                self._view.stage("")  # the failed attempt's stage is over; ⚠️ or 💥 follows
        await self.checkpoint()

    async def checkpoint(self) -> None:
        await self._save(self._view.state)

    async def _save(self, state: LogState) -> None:
        # Only the log's own key: the view may save after the retry hook wrote its keys.
        self._context.payload["log"] = state.to_json()
        await self._context.save()
