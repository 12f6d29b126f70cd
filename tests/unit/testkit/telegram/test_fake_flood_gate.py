"""The fake Bot API's flood limits, on a hand-driven clock: Telegram's documented numbers."""

from __future__ import annotations

import pytest

from testkit.telegram import ApiError, FloodLimits
from testkit.telegram.flood import FloodGate, counts_as_message

PRIVATE, OTHER, GROUP = 1001, 1002, -100200


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def refused_after(gate: FloodGate, method: str, chat_id: int | None) -> int:
    with pytest.raises(ApiError) as caught:
        gate.admit(method, chat_id)
    error = caught.value
    assert error.code == 429
    assert error.description == f"Too Many Requests: retry after {error.retry_after}"
    assert error.retry_after is not None
    return error.retry_after


def test_a_chat_takes_a_short_burst_then_one_message_a_second(clock: Clock) -> None:
    gate = FloodGate(FloodLimits(chat_burst=4), clock)
    for _ in range(4):
        gate.admit("sendMessage", PRIVATE)

    assert refused_after(gate, "editMessageText", PRIVATE) == 1
    gate.admit("sendMessage", OTHER)  # another chat is not affected
    clock.now += 1.0
    gate.admit("sendVideo", PRIVATE)
    assert refused_after(gate, "sendMessage", PRIVATE) == 1


def test_a_group_gets_twenty_messages_in_any_minute(clock: Clock) -> None:
    gate = FloodGate(FloodLimits(), clock)
    for _ in range(20):
        gate.admit("sendVideo", GROUP)
        clock.now += 1.0  # within the per-chat rate: only the group's minute can refuse

    assert refused_after(gate, "sendVideo", GROUP) == 40
    clock.now += 39.5
    assert refused_after(gate, "sendMessage", GROUP) == 1
    clock.now += 0.5
    gate.admit("sendMessage", GROUP)
    assert refused_after(gate, "sendMessage", GROUP) >= 1


def test_about_thirty_messages_a_second_overall(clock: Clock) -> None:
    gate = FloodGate(FloodLimits(), clock)
    for chat in range(30):
        gate.admit("sendMessage", 5000 + chat)

    assert refused_after(gate, "sendMessage", 6000) == 1
    clock.now += 0.1
    gate.admit("sendMessage", 6000)  # 30 a second refill: three more after a tenth of a second
    gate.admit("sendMessage", 6001)
    gate.admit("sendMessage", 6002)
    assert refused_after(gate, "sendMessage", 6003) == 1


def test_a_refused_call_gives_its_share_back(clock: Clock) -> None:
    gate = FloodGate(FloodLimits(chat_burst=1), clock)
    admission = gate.admit("editMessageText", GROUP)
    assert admission is not None
    gate.give_back(admission)  # e.g. "message is not modified": nothing was delivered

    gate.admit("editMessageText", GROUP)
    assert refused_after(gate, "sendMessage", GROUP) == 1


def test_only_messages_count() -> None:
    assert [m for m in ("sendMessage", "sendVideo", "editMessageText", "copyMessage") if counts_as_message(m)]
    assert not [
        m
        for m in ("sendChatAction", "getUpdates", "setMessageReaction", "answerCallbackQuery", "getMe")
        if counts_as_message(m)
    ]


def test_a_call_that_is_not_a_message_is_never_refused(clock: Clock) -> None:
    gate = FloodGate(FloodLimits(chat_burst=1, global_burst=1), clock)
    gate.admit("sendMessage", PRIVATE)

    assert gate.admit("sendChatAction", PRIVATE) is None
    assert gate.admit("getUpdates", None) is None
