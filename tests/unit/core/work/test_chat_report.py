"""A download's report in its chat: an attempt stopped from outside (its lease lost or run out)
leaves its log message to whoever holds the job now, at once, and writes nothing on its way out."""

from __future__ import annotations

import logging
import math
from typing import Any

import pytest

from adapters.telegram.pacing import ChatPacer
from core.jobs.context import JobContext
from core.jobs.fence import Fence
from core.jobs.in_flight import HeldJob, StopReason
from core.jobs.submitter import JobSubmitter
from core.log_message.views import LogViews
from core.requests.download import DownloadRequest
from core.work.download.chat_report import ChatReports
from ports.jobs import Job
from ports.json import Payload
from tests.support.clock import VirtualClock, settle
from tests.support.languages import languages
from tests.support.messenger import FakeMessenger
from tests.support.pacing import UNPACED

CHAT = 42
REQUEST = DownloadRequest("https://example.com/v", CHAT, "private", 7, CHAT)


class SubmitsNothing(JobSubmitter):
    async def submit(self, name: str, payload: Payload, **_: Any) -> int | None:
        raise AssertionError("a report submits no job")


async def _never_asked(_: HeldJob, __: float) -> bool:
    raise AssertionError("a report reserves no send")


@pytest.mark.parametrize("reason", [StopReason.EXPIRED, StopReason.LOST])
async def test_a_stopped_attempt_leaves_its_log_message_at_once_and_saves_nothing(
    clock: VirtualClock, caplog: pytest.LogCaptureFixture, reason: StopReason
) -> None:
    chat = FakeMessenger()
    logs = LogViews(chat, clock, ChatPacer(clock, UNPACED))
    job = Job(3, "download_video", REQUEST.to_payload(), 1, 3, 0.0, 0.0, claimed_by="w", token=1)
    held = HeldJob(job, lease_ends_at=math.inf)
    saved: list[Payload] = []

    async def save(payload: Payload) -> None:
        saved.append(dict(payload))

    fence = Fence(held, clock, margin_seconds=5, reserve=_never_asked)
    context = JobContext(job, save, SubmitsNothing(), fence)
    reports = ChatReports(logs=logs, languages=languages(), upload_limit_bytes=50_000_000)
    report = reports.for_attempt(REQUEST, context)
    await report.scraping()
    await settle()
    shown, saves = list(chat.calls), len(saved)

    held.stop(reason)
    with caplog.at_level(logging.INFO, "vidrelay.log_message"):
        await report.finish(None)  # the attempt's task, cancelled, on its way out
        await clock.advance(60)

    assert chat.calls == shown  # no edit after the stop
    assert len(saved) == saves  # no checkpoint: the row may be another worker's now
    assert [r.getMessage() for r in caplog.records] == ["log message left to the job's new holder"]
