"""The log message as a view of its job: the job writes without waiting, one sender per chat
delivers the latest text when it is due and pacing allows, and nothing goes after the end."""

from __future__ import annotations

import asyncio
import itertools
import logging

import pytest

from core.log_message.sender import EDIT_INTERVAL_SECONDS
from core.log_message.state import LogAddress, LogState
from core.log_message.view import LogView
from core.log_message.views import LogViews
from ports.messenger import Keyboard
from ports.pacing import SendPacing, Turn
from tests.support.clock import VirtualClock, settle
from tests.support.messenger import ChatMessage, FakeMessenger

CHAT, USER_MESSAGE = 42, 7
TO = LogAddress(CHAT, USER_MESSAGE)
CANCEL = "🚫 Cancel"


class ScriptedPacing(SendPacing):
    """Every turn goes at once unless a test says the chat must wait."""

    def __init__(self) -> None:
        self.waits: dict[Turn, float] = {}
        self.asked: list[tuple[int, Turn]] = []

    def wait_seconds(self, chat_id: int, turn: Turn, count: int = 1) -> float:
        self.asked.append((chat_id, turn))
        return self.waits.get(turn, 0.0)


class TimedMessenger(FakeMessenger):
    def __init__(self, clock: VirtualClock) -> None:
        super().__init__()
        self._clock = clock
        self.edited_at: list[float] = []

    async def edit_text(self, chat_id: int, message_id: int, text: str, **options: object) -> None:
        self.edited_at.append(self._clock.now())
        await super().edit_text(chat_id, message_id, text, **options)  # type: ignore[arg-type]


class Board:
    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock
        self.messenger = TimedMessenger(clock)
        self.pacing = ScriptedPacing()
        self.views = LogViews(self.messenger, clock, self.pacing)
        self.saved: list[LogState] = []

    async def save(self, state: LogState) -> None:
        self.saved.append(LogState.from_json(state.to_json()))

    def adopt(self, job_id: int = 1, state: LogState | None = None) -> LogView:
        return self.views.adopt(job_id, TO, state or LogState(), self.save, cancel_label=CANCEL)

    def message(self) -> ChatMessage:
        [message] = self.messenger.chat(CHAT)
        return message

    def calls(self) -> list[str]:
        return [c for c in self.messenger.calls if c in ("send_text", "edit_text")]


async def test_a_fast_job_shows_its_first_text_then_only_its_last(clock: VirtualClock) -> None:
    board = Board(clock)
    view = board.adopt()
    view.stage("🧐 Scraping URL...")
    await settle()
    view.line("\n🎬 <b>Video info:</b> Clip")
    view.stage("⬇️ Downloading...")
    view.progress("[█████░░░░░] 50.0%")
    await clock.advance(0.2)
    view.stage("🚀 Uploading (1.00 MB)...")
    await clock.advance(1.0)
    await view.hold()
    view.settle("✅ Sent (1.00 MB)")
    await settle()

    assert board.calls() == ["send_text", "edit_text"]
    message = board.message()
    assert message.reply_to == USER_MESSAGE
    assert message.edits == ["🎬 <b>Video info:</b> Clip\n✅ Sent (1.00 MB)"]


async def test_a_slow_job_is_edited_at_most_every_interval_with_its_latest_progress(
    clock: VirtualClock,
) -> None:
    board = Board(clock)
    view = board.adopt()
    view.stage("⬇️ Downloading...")
    await settle()
    for tenth in range(200):  # 20 s of progress, ten reports a second
        view.progress(f"{tenth / 2:.1f}%")
        await clock.advance(0.1)
    await clock.advance(1.5)

    edited_at = board.messenger.edited_at
    gaps = [later - earlier for earlier, later in itertools.pairwise(edited_at)]
    assert len(edited_at) == 7  # at 3, 6, … 21 s
    assert min(gaps) >= EDIT_INTERVAL_SECONDS - 1e-6
    assert board.message().text == "⬇️ Downloading...\n99.5%"  # the latest, not the one queued first


async def test_the_first_text_goes_as_a_new_message_and_its_id_is_saved(clock: VirtualClock) -> None:
    board = Board(clock)
    view = board.adopt()
    view.stage("⏳ Queued — 3 ahead of you")
    await settle()

    assert board.saved[-1].message_ids == [board.message().message_id]
    assert (CHAT, Turn.MESSAGE) in board.pacing.asked


async def test_nothing_reaches_the_chat_after_the_end(clock: VirtualClock) -> None:
    board = Board(clock)
    view = board.adopt()
    view.stage("⬇️ Downloading...")
    await settle()
    await clock.advance(EDIT_INTERVAL_SECONDS)
    view.progress("[██░░░░░░░░] 20.0%")
    await view.end()  # e.g. the bytes on disk turned out too large: the reply is the last word
    view.progress("[█████████░] 90.0%")
    view.stage("🚀 Uploading...")
    view.settle("✅ Sent")
    await clock.advance(30)

    assert board.calls() == ["send_text"]
    assert board.message().text == "⬇️ Downloading..."


async def test_a_held_view_lets_no_earlier_state_past_the_video(clock: VirtualClock) -> None:
    board = Board(clock)
    view = board.adopt()
    view.stage("⬇️ Downloading...")
    await settle()
    await clock.advance(EDIT_INTERVAL_SECONDS + 1)
    board.pacing.waits[Turn.EDIT] = 0.5  # the chat is busy: the progress edit waits for its turn
    view.progress("[██████████] 100.0%")
    await view.hold()
    await clock.advance(5)
    assert board.calls() == ["send_text"]

    board.pacing.waits.clear()
    view.settle("✅ Sent")
    await settle()
    assert board.calls() == ["send_text", "edit_text"]
    assert board.message().text == "✅ Sent"


async def test_an_edit_waits_while_pacing_says_a_video_may_need_the_turn(clock: VirtualClock) -> None:
    board = Board(clock)
    view = board.adopt()
    view.stage("🧐 Scraping URL...")
    await settle()
    board.pacing.waits[Turn.EDIT] = 10.0
    view.settle("✅ Sent")
    await clock.advance(9)
    assert board.calls() == ["send_text"]

    board.pacing.waits.clear()
    await clock.advance(1)
    assert board.message().text == "✅ Sent"


async def test_the_worker_adopts_the_view_the_intake_opened(clock: VirtualClock) -> None:
    board = Board(clock)
    queued = board.views.open(9, TO, LogState(), board.save, cancel_label=CANCEL)
    queued.stage("⏳ Queued — 27 ahead of you")
    await settle()
    await clock.advance(20)
    running = board.adopt(9, LogState())
    running.stage("🧐 Scraping URL...")
    running.line("\n🎬 <b>Video info:</b> Clip")
    await clock.advance(1)
    running.settle("✅ Sent")
    await settle()

    assert running is queued
    assert board.calls() == ["send_text", "edit_text"]  # no stage shown: the job was done within the interval
    assert board.message().text == "🎬 <b>Video info:</b> Clip\n✅ Sent"


async def test_a_view_reopened_after_a_restart_edits_the_same_message(clock: VirtualClock) -> None:
    board = Board(clock)
    first = board.adopt(5)
    first.line("🧐 line")
    first.line("\n⚠️ retrying (attempt 2 of 3)...")
    await settle()
    saved = board.saved[-1]

    restarted = Board(clock)
    restarted.messenger = board.messenger
    restarted.views = LogViews(board.messenger, clock, restarted.pacing)
    second = restarted.adopt(5, LogState.from_json(saved.to_json()))
    second.line("\n💥 <b>Download failed</b>: gone")
    second.settle()
    await settle()

    message = board.message()
    assert "⚠️" in (message.text or "")
    assert "💥" in (message.text or "")


async def test_two_jobs_in_one_chat_each_keep_their_own_message(clock: VirtualClock) -> None:
    board = Board(clock)
    one, two = board.adopt(1), board.adopt(2)
    one.stage("one")
    two.stage("two")
    await settle()
    one.settle("one done")
    two.settle("two done")
    await settle()

    assert sorted(m.text or "" for m in board.messenger.chat(CHAT)) == ["one done", "two done"]


async def test_drain_lets_the_last_text_out_at_shutdown(clock: VirtualClock) -> None:
    board = Board(clock)
    view = board.adopt()
    view.stage("🚀 Uploading...")
    await settle()
    board.pacing.waits[Turn.EDIT] = 1.0
    view.settle("✅ Sent")
    draining = asyncio.ensure_future(board.views.drain(5.0))
    await clock.advance(1.0)
    board.pacing.waits.clear()
    await clock.advance(1.0)
    await asyncio.wait_for(draining, 1)

    assert board.message().text == "✅ Sent"


async def test_a_view_whose_owner_lost_the_job_signs_no_button_makes_no_call_and_is_left(
    clock: VirtualClock, caplog: pytest.LogCaptureFixture
) -> None:
    board = Board(clock)
    owner_holds = True
    view = board.views.adopt(1, TO, LogState(), board.save, lambda: owner_holds, cancel_label=CANCEL)
    signed: list[int] = []

    async def buttons(message_id: int) -> Keyboard:
        signed.append(message_id)  # a store call (the button's signature)
        return []

    view.buttons = buttons
    view.stage("⬇️ Downloading...")
    await settle()
    owner_holds = False  # the lease ran out: another worker may show the job now
    view.progress("[█████░░░░░] 50.0%")
    with caplog.at_level(logging.INFO, "vidrelay.log_message"):
        await clock.advance(EDIT_INTERVAL_SECONDS + 1)

    assert board.calls() == ["send_text"]
    assert signed == []  # the first message had none yet; the edit that was due never signed one
    assert view.abandoned
    assert view.closed
    assert [r.getMessage() for r in caplog.records] == ["log message left to the job's new holder"]
    again = board.adopt(1, LogState.from_json(board.saved[-1].to_json()))
    assert again is not view  # a later attempt here shows the job afresh
    assert not again.closed
