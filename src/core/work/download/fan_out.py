"""A multi-video post becomes one child job per video, each retrying alone."""

from __future__ import annotations

from returns.result import Success

from core import texts
from core.jobs.outcome import JobOutcome
from core.jobs.submitter import JobSubmitter
from core.requests.download import DownloadRequest
from core.requests.job_names import DOWNLOAD_VIDEO
from core.urls import site_key
from core.work.download.chat_report import ChatReport
from core.work.download.replies import Replies
from ports.jobs import HandledUrlGuard
from ports.media import VideoInfo

MAX_ENTRIES = 10


async def fan_out(
    request: DownloadRequest,
    entries: list[VideoInfo],
    jobs: JobSubmitter,
    replies: Replies,
    report: ChatReport,
) -> JobOutcome:
    for index, _ in enumerate(entries[:MAX_ENTRIES]):
        child = request.for_job(entry_index=index, confirmed=request.confirmed, verbose=request.verbose)
        # The guard makes a re-run of this discovery (after a crash) enqueue each child once.
        guard = HandledUrlGuard(request.chat_id, request.message_id, f"{request.url}#entry={index}")
        await jobs.submit(
            DOWNLOAD_VIDEO,
            child.to_payload(),
            key=site_key(request.url),
            requester=request.chat_id,
            guard=guard,
        )
    words = replies.words(request)
    if len(entries) > MAX_ENTRIES:
        await replies.say(request, words.say(texts.MORE_THAN_TEN))
    report.note(words.fanned_out(min(len(entries), MAX_ENTRIES)))
    report.done()
    return Success(None)
