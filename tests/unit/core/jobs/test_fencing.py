"""Fencing reaches Telegram, on virtual time: an attempt whose lease could not be renewed before
its end stops at once and makes no further call; every Telegram call of an attempt first asks
whether its lease has the margin left; a send holds the lease for its whole budget first; a
paused worker that wakes past its lease says nothing more."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import pytest
from returns.result import Success

from adapters.memory.store import MemoryStore
from adapters.telegram.pacing import ChatPacer
from core.jobs.context import JobContext
from core.jobs.engine import Engine
from core.jobs.fence import Fence
from core.jobs.in_flight import HeldJob, InFlight, StopReason
from core.jobs.outcome import JobOutcome
from core.jobs.registry import JobType
from core.log_message.state import LogAddress, LogState
from core.log_message.views import LogViews
from core.work.fenced import FencedMessengers, SendBudgets
from ports.jobs import Job, Lease
from ports.messenger import Keyboard, SentVideo, StoredVideo, VideoFile, VideoMeta
from tests.support.clock import VirtualClock, settle
from tests.support.faulty_engine import engine_over
from tests.support.faulty_queue import FaultyQueue
from tests.support.messenger import FakeMessenger
from tests.support.pacing import UNPACED

LEASE = 30.0
MARGIN = 5.0
BUDGETS = SendBudgets(upload_seconds=600.0, call_seconds=60.0)


class RenewLog(FaultyQueue):
    """The store, with every renewal's duration written down."""

    def __init__(self, inner: MemoryStore) -> None:
        super().__init__(inner)
        self.renewals: list[tuple[list[int], float]] = []

    async def renew(self, worker_id: str, leases: Any, now: float, lease_seconds: float) -> list[Lease]:
        self.renewals.append(([lease.job_id for lease in leases], lease_seconds))
        return await super().renew(worker_id, leases, now, lease_seconds)


async def test_an_attempt_whose_lease_cannot_be_renewed_stops_at_its_end_and_writes_nothing(
    clock: VirtualClock, stopped_at_the_end: list[Engine]
) -> None:
    store = MemoryStore()
    queue = FaultyQueue(store)
    stopped_at: list[float] = []
    started = clock.now()

    async def long_download(context: JobContext) -> JobOutcome:
        try:
            await clock.sleep(10_000)
        except asyncio.CancelledError:  # how the adapters kill their child processes
            stopped_at.append(clock.now() - started)
            raise
        return Success(None)

    engine = engine_over(
        queue, clock, JobType("download", long_download, timeout_seconds=20_000), concurrency=1
    )
    stopped_at_the_end.append(engine)
    await engine.submit("download", {})
    await engine.start()
    await settle()
    queue.fails = lambda name: name == "renew"  # cut off from the database

    await clock.advance(LEASE - 1)
    assert stopped_at == []
    await clock.advance(2)

    assert stopped_at == [pytest.approx(LEASE, abs=0.1)]  # at the end of the lease, not later
    assert engine.in_flight == 0
    [row] = await store.list_jobs()
    assert row.attempts == 1  # no finishing write: the row is another worker's to take back


async def test_every_call_of_an_attempt_short_of_the_margin_is_refused_and_stops_it(
    clock: VirtualClock, stopped_at_the_end: list[Engine]
) -> None:
    store = MemoryStore()
    queue = FaultyQueue(store)
    chat = FakeMessenger()
    messengers = FencedMessengers(chat, BUDGETS)
    calls: list[str] = []

    async def chatty(context: JobContext) -> JobOutcome:
        messenger = messengers.for_attempt(context.fence)
        for n in range(100):
            await messenger.send_text(7, f"step {n}")
            calls.append(f"step {n}")
            await clock.sleep(1)
        return Success(None)

    engine = engine_over(queue, clock, JobType("chatty", chatty, timeout_seconds=20_000), concurrency=1)
    stopped_at_the_end.append(engine)
    await engine.submit("chatty", {})
    await engine.start()
    await settle()
    await clock.advance(12)  # renewed once at 10 s: the lease now ends at 40 s
    queue.fails = lambda name: name == "renew"

    await clock.advance(60)

    sent = [m.text for m in chat.chat(7)]
    assert sent == calls
    assert len(sent) == 36  # one a second from 0 s to 35 s, 5 s before the lease's end (40 s); none after
    assert engine.in_flight == 0


class SlowUploads(FakeMessenger):
    """An upload takes minutes (a big file, a slow link)."""

    def __init__(self, clock: VirtualClock, seconds: float) -> None:
        super().__init__()
        self._clock = clock
        self._seconds = seconds

    async def send_video(
        self,
        chat_id: int,
        video: VideoFile | StoredVideo,
        meta: VideoMeta,
        *,
        reply_to: int | None = None,
        keyboard: Keyboard | None = None,
    ) -> SentVideo:
        if isinstance(video, VideoFile):
            await self._clock.sleep(self._seconds)
        return await super().send_video(chat_id, video, meta, reply_to=reply_to, keyboard=keyboard)


async def test_a_send_holds_the_lease_for_its_whole_budget_first(
    clock: VirtualClock, stopped_at_the_end: list[Engine], tmp_path: Path
) -> None:
    store = MemoryStore()
    queue = RenewLog(store)
    chat = SlowUploads(clock, 400.0)
    messengers = FencedMessengers(chat, BUDGETS)
    video = tmp_path / "v.mp4"
    video.write_bytes(b"x")

    async def upload(context: JobContext) -> JobOutcome:
        await messengers.for_attempt(context.fence).send_video(7, VideoFile(video), VideoMeta())
        return Success(None)

    engine = engine_over(queue, clock, JobType("upload", upload, timeout_seconds=20_000), concurrency=1)
    stopped_at_the_end.append(engine)
    job_id = await engine.submit("upload", {})
    await engine.start()
    await settle()
    assert queue.renewals == [([job_id], MARGIN + 600.0)]  # before the upload went out
    await clock.advance(100)
    beats = queue.renewals[1:]
    assert len(beats) == 10
    assert all(seconds >= MARGIN + 600.0 - 10 * (n + 1) for n, (_, seconds) in enumerate(beats))
    queue.fails = lambda name: name == "renew"  # the database goes away mid-upload

    await clock.advance(301)

    assert len([m for m in chat.chat(7) if m.video]) == 1  # the upload was not cut short
    assert await store.list_jobs() == []  # and its job completed


async def test_a_send_by_file_id_holds_the_lease_for_an_ordinary_call(
    clock: VirtualClock, stopped_at_the_end: list[Engine]
) -> None:
    store = MemoryStore()
    queue = RenewLog(store)
    chat = FakeMessenger()
    chat.file_ids["known"] = "f1"
    messengers = FencedMessengers(chat, BUDGETS)

    async def resend(context: JobContext) -> JobOutcome:
        await messengers.for_attempt(context.fence).send_video(7, StoredVideo("f1"), VideoMeta())
        return Success(None)

    engine = engine_over(queue, clock, JobType("resend", resend), concurrency=1)
    stopped_at_the_end.append(engine)
    job_id = await engine.submit("resend", {})
    await engine.start()
    await settle()

    assert queue.renewals == [([job_id], MARGIN + 60.0)]
    assert [m.video for m in chat.chat(7)] == ["f1"]


async def test_a_worker_paused_past_its_lease_says_nothing_when_it_wakes(
    clock: VirtualClock, stopped_at_the_end: list[Engine]
) -> None:
    store = MemoryStore()
    chat = FakeMessenger()
    messengers = FencedMessengers(chat, BUDGETS)
    logs = LogViews(chat, clock, ChatPacer(clock, UNPACED))

    async def downloading(context: JobContext) -> JobOutcome:
        view = logs.adopt(
            context.job.id, LogAddress(7, 1), LogState(), _nothing, context.fence.holds, cancel_label="🚫"
        )
        messenger = messengers.for_attempt(context.fence)
        for percent in range(0, 100, 10):
            view.progress(f"{percent} %")
            await clock.sleep(3)
        await messenger.send_text(7, "the video")
        return Success(None)

    engine = engine_over(store, clock, JobType("dl", downloading, timeout_seconds=20_000), concurrency=1)
    stopped_at_the_end.append(engine)
    await engine.submit("dl", {})
    await engine.start()
    await clock.advance(7)
    shown = list(chat.calls)
    assert shown  # the log message went out and was edited while the lease held

    clock.jump(LEASE + 10)  # SIGSTOP … SIGCONT: every timer is overdue at once
    [held] = await store.list_jobs()
    await store.release(held.lease, clock.now())  # meanwhile its lease ended in the store,
    assert await store.claim("worker-b", clock.now(), 100 * LEASE) is not None  # and b took it
    await clock.advance(0.1)
    await clock.advance(30)

    assert chat.calls == shown  # not one call after the wake: no edit, no video
    assert engine.in_flight == 0


async def _nothing(_: LogState) -> None:
    return None


def test_a_heartbeat_that_finds_a_finished_jobs_row_gone_does_not_silence_its_last_words() -> None:
    # A busy machine can run a heartbeat between a job's finishing write (its dead letter, say)
    # and the drop of its hold: the renewal then finds the row gone, "lost". The 💥 edit that
    # follows is still the attempt's own to make.
    in_flight = InFlight()
    job = Job(7, "download_video", {}, 1, 3, 0.0, 0.0, claimed_by="w", token=4)
    held = in_flight.hold(job, 0.0, math.inf)
    fence = Fence(held, None, margin_seconds=MARGIN, reserve=_never_asked)

    in_flight.landed(job.lease)
    in_flight.stop(job.lease, StopReason.LOST)

    assert held.stopped is None
    assert fence.holds()


def test_a_lost_lease_before_the_finishing_write_silences_the_attempt() -> None:
    in_flight = InFlight()
    job = Job(8, "download_video", {}, 1, 3, 0.0, 0.0, claimed_by="w", token=4)
    held = in_flight.hold(job, 0.0, math.inf)
    fence = Fence(held, None, margin_seconds=MARGIN, reserve=_never_asked)

    in_flight.stop(job.lease, StopReason.LOST)
    in_flight.landed(job.lease)  # a write that landed anyway cannot make it ours again

    assert held.stopped is StopReason.LOST
    assert not fence.holds()


async def _never_asked(_: HeldJob, __: float) -> bool:
    raise AssertionError("no send is reserved in these tests")
