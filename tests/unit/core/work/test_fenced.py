"""Every Telegram call of a job's attempt asks its fence first: once the attempt was stopped (its
lease lost or run out), no method of the fenced Messenger reaches the chat — not only the
send and the edit, but a reaction, a delete, a press's answer, an inline edit."""

from __future__ import annotations

import inspect
import math
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from core.jobs.fence import Fence
from core.jobs.in_flight import AttemptStopped, HeldJob, StopReason
from core.work.fenced import FencedMessenger, SendBudgets
from ports.jobs import Job
from ports.messenger import (
    AudioFile,
    AudioMeta,
    DocumentMeta,
    Messenger,
    StoredAudio,
    StoredDocument,
    StoredVideo,
    VideoFile,
    VideoMeta,
)
from tests.support.clock import VirtualClock
from tests.support.messenger import FakeMessenger

Call = Callable[[Messenger], Awaitable[object]]
CALLS: dict[str, Call] = {
    "send_text": lambda m: m.send_text(7, "hi"),
    "edit_text": lambda m: m.edit_text(7, 1, "hi"),
    "edit_keyboard": lambda m: m.edit_keyboard(7, 1, None),
    "delete_message": lambda m: m.delete_message(7, 1),
    "send_video": lambda m: m.send_video(7, StoredVideo("f1"), VideoMeta()),
    "react": lambda m: m.react(7, 1, "👍"),
    "answer_callback": lambda m: m.answer_callback("c1"),
    "member_status": lambda m: m.member_status(7, 8),
    "edit_inline_video": lambda m: m.edit_inline_video("i1", "f1", VideoMeta()),
    "send_audio": lambda m: m.send_audio(7, StoredAudio("a1"), AudioMeta()),
    "edit_inline_audio": lambda m: m.edit_inline_audio("i1", "a1", AudioMeta()),
    "edit_inline_text": lambda m: m.edit_inline_text("i1", "hi"),
    "send_album": lambda m: m.send_album(
        7, [(StoredVideo("f1"), VideoMeta()), (StoredVideo("f2"), VideoMeta())]
    ),
    "send_document": lambda m: m.send_document(7, StoredDocument("d1"), DocumentMeta()),
}
"""One call of each method of the Messenger port (a new method needs its line here)."""


def _port_methods() -> set[str]:
    return {name for name, _ in inspect.getmembers(Messenger, inspect.isfunction) if not name.startswith("_")}


async def _never_asked(_: HeldJob, __: float) -> bool:
    raise AssertionError("a stopped attempt reserves nothing")


def test_the_fenced_messenger_fences_every_method_of_the_port() -> None:
    # A method the port gains and the fence forgets would run the Protocol's empty body.
    assert set(CALLS) == _port_methods()
    assert all("_fence" in inspect.getsource(getattr(FencedMessenger, name)) for name in CALLS)


@pytest.mark.parametrize("reason", [StopReason.EXPIRED, StopReason.LOST])
@pytest.mark.parametrize("method", sorted(CALLS))
async def test_no_call_of_a_stopped_attempt_reaches_the_chat(
    clock: VirtualClock, method: str, reason: StopReason
) -> None:
    chat = FakeMessenger()
    held = HeldJob(
        Job(1, "download_video", {}, 1, 3, 0.0, 0.0, claimed_by="w", token=1), lease_ends_at=math.inf
    )
    fence = Fence(held, clock, margin_seconds=5, reserve=_never_asked)
    fenced = FencedMessenger(chat, fence, SendBudgets(upload_seconds=600, call_seconds=60))
    held.stop(reason)

    with pytest.raises(AttemptStopped):
        await CALLS[method](fenced)
    assert chat.calls == []


async def test_an_upload_too_reserves_its_budget_before_it_goes(clock: VirtualClock, tmp_path: Path) -> None:
    chat = FakeMessenger()
    held = HeldJob(Job(1, "download_video", {}, 1, 3, 0.0, 0.0, claimed_by="w", token=1))
    held.lease_ends_at = clock.monotonic() + 30
    asked: list[float] = []

    async def reserve(_: HeldJob, seconds: float) -> bool:
        asked.append(seconds)
        return False  # the store says another worker holds the job now

    fenced = FencedMessenger(
        chat, Fence(held, clock, margin_seconds=5, reserve=reserve), SendBudgets(600, 60)
    )
    video, audio = tmp_path / "v.mp4", tmp_path / "a.m4a"
    for upload in (
        lambda: fenced.send_video(7, VideoFile(video), VideoMeta()),
        lambda: fenced.send_audio(7, AudioFile(audio), AudioMeta()),
    ):
        with pytest.raises(AttemptStopped):
            await upload()
    # The first found the job lost (and stopped the attempt); the second never asked again.
    assert asked == [605]
    assert chat.calls == []
