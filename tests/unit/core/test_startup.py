"""Start-up against a Telegram that does not answer yet: retry with a capped backoff, stop at a no."""

from __future__ import annotations

import asyncio
import logging

import pytest
from returns.result import Failure, Success

from core.startup import STARTUP_BACKOFF, Refused, reach_chat_service
from ports.bot_account import BotAccount
from ports.messenger import MessengerError
from tests.support.clock import VirtualClock


class ScriptedAccount(BotAccount):
    """Answers with the scripted errors first, then with the bot's name."""

    def __init__(self, *errors: MessengerError) -> None:
        self._errors = list(errors)
        self.calls = 0

    async def identify(self) -> str:
        self.calls += 1
        if self._errors:
            raise self._errors.pop(0)
        return "@vidrelay_bot"


def middle() -> float:
    return 0.5  # no jitter: backoff_delay's spread is 1 + jitter·(2·0.5 − 1) = 1


async def test_an_unreachable_telegram_is_asked_again_with_a_growing_capped_wait(
    clock: VirtualClock, caplog: pytest.LogCaptureFixture
) -> None:
    down = [MessengerError("ClientConnectorError: Cannot connect to host") for _ in range(7)]
    account = ScriptedAccount(*down, MessengerError("Bad Gateway", 502))
    caplog.set_level(logging.WARNING, "vidrelay.startup")
    started = clock.now()
    reaching = asyncio.ensure_future(reach_chat_service(account, clock, middle))
    await clock.run_until(reaching.done, limit_seconds=600, step=0.25)
    assert reaching.result() == Success("@vidrelay_bot")
    assert account.calls == 9
    waits = [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]  # capped at 30 s
    assert clock.now() - started == pytest.approx(sum(waits), abs=0.25)
    lines = [(r.getMessage(), r.__dict__["error"]) for r in caplog.records]
    assert len(lines) == 8  # one line per failed try, the reason in its error field
    assert lines[0] == (
        "Telegram is not answering (try 1); next try in 1.0s",
        "ClientConnectorError: Cannot connect to host",
    )
    assert lines[-1] == ("Telegram is not answering (try 8); next try in 30.0s", "502 Bad Gateway")
    assert all(r.exc_info is None for r in caplog.records)


async def test_a_flood_wait_waits_what_telegram_asked(clock: VirtualClock) -> None:
    account = ScriptedAccount(MessengerError("Too Many Requests: retry after 7", 429, 7.0))
    reaching = asyncio.ensure_future(reach_chat_service(account, clock, middle))
    await clock.advance(6.9)
    assert not reaching.done()
    await clock.advance(0.2)
    assert reaching.result() == Success("@vidrelay_bot")


@pytest.mark.parametrize(("code", "description"), [(401, "Unauthorized"), (404, "Not Found")])
async def test_a_refusal_ends_the_start_at_once(clock: VirtualClock, code: int, description: str) -> None:
    account = ScriptedAccount(MessengerError(description, code))
    result = await reach_chat_service(account, clock, middle)
    assert isinstance(result, Failure)
    refused = result.failure()
    assert isinstance(refused, Refused)
    assert refused.unauthorized is (code == 401)
    assert refused.describe() == f"{code} {description}"
    assert account.calls == 1
    assert clock.sleepers == 0


def test_the_backoff_is_capped() -> None:
    assert STARTUP_BACKOFF.cap_seconds == 30.0
