"""Flood control: 429 retry_after and per-chat pacing, with a real Bot against the fake Bot API.

Real-time tests assert spacing from the fake's recorded call times; virtual-time tests drive the
middleware's waits through the Clock port and check what was sent before and after.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from pathlib import Path

import pytest
from aiogram import Bot
from aiogram.methods import (
    EditMessageMedia,
    EditMessageText,
    GetUpdates,
    SendChatAction,
    SendMessage,
    SendVideo,
)
from aiogram.types import InputMediaVideo

from adapters.system.clock import SystemClock
from adapters.telegram.flood import FloodControl, paced_chat, turn_of
from adapters.telegram.messenger import TelegramMessenger
from adapters.telegram.pacing import ChatPacer, PacingPolicy
from adapters.telegram.session import make_bot
from ports.clock import Clock
from ports.messenger import MessengerError, VideoFile, VideoMeta
from ports.pacing import Turn
from testkit.telegram import DEFAULT_TOKEN, FakeBotApi
from tests.support.clock import VirtualClock
from tests.support.pacing import UNPACED as FAST
from tests.support.people import GROUP, PRIVATE
from tests.support.telegram_bots import close


def messenger_for(
    api: FakeBotApi, clock: Clock, policy: PacingPolicy = FAST, **kwargs: float
) -> tuple[Bot, TelegramMessenger]:
    flood = FloodControl(clock, policy, **kwargs)  # type: ignore[arg-type]
    bot = make_bot(DEFAULT_TOKEN, api.base_url, False, flood=flood)
    return bot, TelegramMessenger(bot, local_mode=False)


async def eventually(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait (bounded) for state that no fake call announces, e.g. a task parked on the virtual clock."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.005)


# -- 429 retry_after, real time


async def test_a_429_is_waited_out_and_the_video_delivered_at_least_retry_after_later(
    api: FakeBotApi, clip: Path
) -> None:
    bot, messenger = messenger_for(api, SystemClock())
    api.fail_next("sendVideo", code=429, retry_after=1)
    try:
        sent = await messenger.send_video(PRIVATE.id, VideoFile(clip), VideoMeta(duration=1))
    finally:
        await close(bot)

    failed, delivered = api.calls_of("sendVideo")
    assert (failed.ok, failed.error_code) == (False, 429)
    assert delivered.ok
    assert delivered.at - failed.at >= 1.0
    assert [v.message_id for v in api.videos()] == [sent.message_id]


async def test_every_bot_api_call_honours_retry_after_not_only_sends(api: FakeBotApi) -> None:
    clock = VirtualClock()
    bot, _ = messenger_for(api, clock)
    api.fail_next("getMe", code=429, retry_after=3)
    try:
        me = asyncio.create_task(bot.get_me())
        await eventually(lambda: clock.sleepers == 1)
        assert len(api.calls_of("getMe")) == 1
        await clock.advance(3)
        user = await asyncio.wait_for(me, 5)
    finally:
        await close(bot)

    assert user.id == api.bot.id
    assert [c.ok for c in api.calls_of("getMe")] == [False, True]


# -- 429 retry_after, virtual time


async def test_the_retry_waits_exactly_retry_after_on_the_clock(api: FakeBotApi, clip: Path) -> None:
    clock = VirtualClock()
    bot, messenger = messenger_for(api, clock)
    api.fail_next("sendVideo", code=429, retry_after=5)
    try:
        sending = asyncio.create_task(messenger.send_video(PRIVATE.id, VideoFile(clip), VideoMeta()))
        await eventually(lambda: clock.sleepers == 1)
        await clock.advance(4.9)
        assert len(api.calls_of("sendVideo")) == 1
        await clock.advance(0.1)
        sent = await asyncio.wait_for(sending, 5)
    finally:
        await close(bot)

    assert [c.ok for c in api.calls_of("sendVideo")] == [False, True]
    assert api.videos()[0].message_id == sent.message_id


async def test_after_the_last_retry_the_429_reaches_the_caller(api: FakeBotApi) -> None:
    clock = VirtualClock()
    bot, messenger = messenger_for(api, clock, max_retries=2)
    api.fail_next("sendMessage", code=429, retry_after=1, times=3)
    try:
        sending = asyncio.create_task(messenger.send_text(PRIVATE.id, "hello"))
        for attempt in (1, 2):
            await eventually(lambda: clock.sleepers == 1)
            assert len(api.calls_of("sendMessage")) == attempt
            await clock.advance(1)
        with pytest.raises(MessengerError) as caught:
            await asyncio.wait_for(sending, 5)
    finally:
        await close(bot)

    assert (caught.value.code, caught.value.retry_after) == (429, 1)
    assert len(api.calls_of("sendMessage")) == 3


async def test_a_retry_after_longer_than_the_cap_is_not_waited_in_the_request(api: FakeBotApi) -> None:
    clock = VirtualClock()
    bot, messenger = messenger_for(api, clock, max_retry_after=60)
    api.fail_next("sendMessage", code=429, retry_after=600)
    try:
        with pytest.raises(MessengerError) as caught:
            await messenger.send_text(PRIVATE.id, "hello")
    finally:
        await close(bot)

    assert caught.value.retry_after == 600
    assert clock.sleepers == 0


# -- pacing


async def test_a_burst_to_one_group_is_spaced_out_while_another_chat_is_not_held_back(
    api: FakeBotApi,
) -> None:
    policy = PacingPolicy(
        private_per_second=1000, private_burst=1000, group_per_second=10, group_burst=1, overall_burst=100
    )
    bot, messenger = messenger_for(api, SystemClock(), policy)
    try:
        burst = [asyncio.create_task(messenger.send_text(GROUP.id, f"video {n}")) for n in range(4)]
        await api.wait_for(lambda: len(api.calls_of("sendMessage")) >= 1)
        private = await messenger.send_text(PRIVATE.id, "meanwhile")
        await asyncio.wait_for(asyncio.gather(*burst), 5)
    finally:
        await close(bot)

    group_times = [c.at for c in api.calls_of("sendMessage") if c.chat_id == GROUP.id]
    gaps = [later - earlier for earlier, later in itertools.pairwise(group_times)]
    assert len(group_times) == 4
    assert min(gaps) >= 0.09
    [private_call] = [c for c in api.calls_of("sendMessage") if c.chat_id == PRIVATE.id]
    assert private_call.at < group_times[-1]
    assert api.message(PRIVATE.id, private) is not None
    assert [m.text for m in api.messages(GROUP.id)] == [f"video {n}" for n in range(4)]


async def test_the_default_group_pace_sends_three_at_once_then_one_a_second(api: FakeBotApi) -> None:
    clock = VirtualClock()
    bot, messenger = messenger_for(api, clock, PacingPolicy())
    try:
        sends = [asyncio.create_task(messenger.send_text(GROUP.id, f"video {n}")) for n in range(5)]
        await api.wait_for(lambda: len(api.messages(GROUP.id)) == 3)
        await eventually(lambda: clock.sleepers == 1)
        assert len(api.messages(GROUP.id)) == 3
        await clock.advance(1)
        await api.wait_for(lambda: len(api.messages(GROUP.id)) == 4)
        await eventually(lambda: clock.sleepers == 1)
        await clock.advance(1)
        await asyncio.wait_for(asyncio.gather(*sends), 5)
    finally:
        await close(bot)

    assert [m.text for m in api.messages(GROUP.id)] == [f"video {n}" for n in range(5)]


async def test_a_group_gets_twenty_messages_a_minute_and_no_more(clock: VirtualClock) -> None:
    pacer = ChatPacer(clock, PacingPolicy())
    for _ in range(20):
        await pacer.acquire(GROUP.id, Turn.VIDEO)
        await clock.advance(1)

    assert pacer.wait_seconds(GROUP.id, Turn.VIDEO) == pytest.approx(61 - 20)
    assert pacer.wait_seconds(PRIVATE.id, Turn.VIDEO) == 0  # another chat is not held back
    twenty_first = asyncio.create_task(pacer.acquire(GROUP.id, Turn.VIDEO))
    await clock.advance(40.5)
    assert not twenty_first.done()
    await clock.advance(0.5)
    await asyncio.wait_for(twenty_first, 1)


async def test_a_429_in_one_chat_holds_that_chat_for_everyone(clock: VirtualClock) -> None:
    pacer = ChatPacer(clock, PacingPolicy())
    pacer.hold(PRIVATE.id, 10)

    held = asyncio.create_task(pacer.acquire(PRIVATE.id))
    await pacer.acquire(GROUP.id)
    await clock.advance(9.5)
    assert not held.done()
    await clock.advance(0.5)
    await asyncio.wait_for(held, 1)


async def test_the_private_pace_allows_three_at_once_then_one_a_second(clock: VirtualClock) -> None:
    pacer = ChatPacer(clock, PacingPolicy())
    for _ in range(3):
        await pacer.acquire(PRIVATE.id)

    fourth = asyncio.create_task(pacer.acquire(PRIVATE.id))
    await clock.advance(0.9)
    assert not fourth.done()
    await clock.advance(0.1)
    await asyncio.wait_for(fourth, 1)


async def test_a_video_goes_before_an_edit_that_was_waiting(clock: VirtualClock) -> None:
    pacer = ChatPacer(clock, PacingPolicy())
    for _ in range(3):
        await pacer.acquire(PRIVATE.id)
    order: list[str] = []

    async def send(name: str, turn: Turn) -> None:
        await pacer.acquire(PRIVATE.id, turn)
        order.append(name)

    edit = asyncio.create_task(send("edit", Turn.EDIT))
    await clock.advance(0.5)
    video = asyncio.create_task(send("video", Turn.VIDEO))
    await clock.advance(3)
    await asyncio.wait_for(asyncio.gather(edit, video), 1)

    assert order == ["video", "edit"]


async def test_an_edit_leaves_a_turn_spare_for_a_video(clock: VirtualClock) -> None:
    pacer = ChatPacer(clock, PacingPolicy())
    await pacer.acquire(PRIVATE.id, Turn.MESSAGE)  # the log message: two of three left
    await pacer.acquire(PRIVATE.id, Turn.EDIT)  # one left: no more edits for now

    assert pacer.wait_seconds(PRIVATE.id, Turn.EDIT) == pytest.approx(1.0)
    assert pacer.wait_seconds(PRIVATE.id, Turn.VIDEO) == 0
    await pacer.acquire(PRIVATE.id, Turn.VIDEO)
    assert pacer.wait_seconds(PRIVATE.id, Turn.VIDEO) == pytest.approx(1.0)


async def test_the_bot_as_a_whole_keeps_under_thirty_messages_a_second(clock: VirtualClock) -> None:
    pacer = ChatPacer(clock, PacingPolicy())
    for chat in range(25):
        await pacer.acquire(10_000 + chat)

    late = asyncio.create_task(pacer.acquire(20_000))
    await clock.advance(0.039)
    assert not late.done()
    await clock.advance(0.002)
    await asyncio.wait_for(late, 1)


@pytest.mark.parametrize(
    ("method", "turn"),
    [
        (SendVideo(chat_id=5, video="file-id"), Turn.VIDEO),
        (SendMessage(chat_id=5, text="x"), Turn.MESSAGE),
        (EditMessageText(chat_id=5, message_id=1, text="x"), Turn.EDIT),
    ],
)
def test_a_video_goes_first_and_an_edit_last(method: object, turn: Turn) -> None:
    assert turn_of(method) is turn  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("method", "chat"),
    [
        (SendMessage(chat_id=5, text="x"), 5),
        (SendVideo(chat_id=-100123, video="file-id"), -100123),
        (SendChatAction(chat_id=5, action="typing"), None),
        (GetUpdates(timeout=10), None),
        (EditMessageMedia(inline_message_id="abc", media=InputMediaVideo(media="file-id")), None),
    ],
)
def test_only_sends_and_edits_into_a_chat_are_paced(method: object, chat: int | None) -> None:
    assert paced_chat(method) == chat  # type: ignore[arg-type]
