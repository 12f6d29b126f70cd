"""The fake Bot API's flood limits over HTTP: Telegram's 429 body, aiogram's reading of it, opt-in."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import TelegramRetryAfter

from testkit.telegram import DEFAULT_TOKEN, Chat, FakeBotApi, FloodLimits, User

ALICE = User(1337, "Alice")
PRIVATE = Chat.private(ALICE)
GROUP = Chat.supergroup(-1004001, "Friends")


@pytest.fixture
async def limited() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi(flood_limits=FloodLimits(chat_burst=2)) as api:
        api.add_chat(PRIVATE)
        api.add_chat(GROUP)
        yield api


async def send(api: FakeBotApi, chat_id: int, text: str = "hi") -> tuple[int, dict[str, Any]]:
    async with (
        aiohttp.ClientSession() as http,
        http.post(
            f"{api.base_url}/bot{DEFAULT_TOKEN}/sendMessage",
            json={"chat_id": chat_id, "text": text},
            timeout=aiohttp.ClientTimeout(total=10),
        ) as response,
    ):
        return response.status, await response.json()


async def test_beyond_a_chats_burst_telegrams_429_body_comes_back(limited: FakeBotApi) -> None:
    assert [(await send(limited, ALICE.id))[0] for _ in range(2)] == [200, 200]

    status, body = await send(limited, ALICE.id)

    assert status == 429
    assert body == {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 1",
        "parameters": {"retry_after": 1},
    }
    assert [c.error_code for c in limited.too_many_requests] == [429]
    assert len(limited.messages(ALICE.id)) == 2  # the refused message was not delivered


async def test_aiogram_reads_the_429_as_retry_after(limited: FakeBotApi) -> None:
    session = AiohttpSession(api=TelegramAPIServer.from_base(limited.base_url))
    bot = Bot(DEFAULT_TOKEN, session=session)
    try:
        for _ in range(2):
            await bot.send_message(GROUP.id, "one of a burst")
        with pytest.raises(TelegramRetryAfter) as caught:
            await bot.send_message(GROUP.id, "one too many")
    finally:
        await session.close()

    assert caught.value.retry_after == 1
    assert "Too Many Requests: retry after 1" in caught.value.message


async def test_a_refused_edit_costs_nothing(limited: FakeBotApi) -> None:
    _, sent = await send(limited, ALICE.id, "same")
    async with aiohttp.ClientSession() as http:
        for _ in range(3):  # "message is not modified" three times: a 400 each, no share taken
            async with http.post(
                f"{limited.base_url}/bot{DEFAULT_TOKEN}/editMessageText",
                json={"chat_id": ALICE.id, "message_id": sent["result"]["message_id"], "text": "same"},
            ) as response:
                assert response.status == 400

    assert (await send(limited, ALICE.id))[0] == 200


async def test_without_limits_a_burst_is_never_refused() -> None:
    async with FakeBotApi() as api:
        api.add_chat(PRIVATE)
        statuses = [(await send(api, ALICE.id))[0] for _ in range(40)]

    assert set(statuses) == {200}
