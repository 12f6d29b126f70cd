"""The fake Bot API going down as Telegram does: 502 with nginx's HTML page, or no connection at
all, from the first call of a method on, for a while; then it answers again on the same port."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import pytest

from testkit.telegram import FakeBotApi
from testkit.telegram.outages import NGINX_502


async def call(api: FakeBotApi, method: str) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{api.base_url}/bot{api.token}/{method}", json={"chat_id": 1, "text": "hi"}) as answer,
    ):
        return answer.status, await answer.text()


async def until_answered(api: FakeBotApi, within: float) -> float:
    """Seconds until getMe is answered 200 again."""
    start = time.monotonic()
    while True:
        try:
            if (await call(api, "getMe"))[0] == 200:
                return time.monotonic() - start
        except aiohttp.ClientError:
            pass
        assert time.monotonic() - start < within, "the fake never came back"
        await asyncio.sleep(0.05)


async def test_a_502_outage_begins_with_its_method_answers_every_call_with_html_then_ends(
    api: FakeBotApi,
) -> None:
    api.go_down(from_method="sendMessage", seconds=1.0)
    assert (await call(api, "getMe"))[0] == 200  # not begun yet

    assert await call(api, "sendMessage") == (502, NGINX_502)
    assert await call(api, "getMe") == (502, NGINX_502)
    await until_answered(api, within=10)

    assert [(c.method, c.ok, c.error_code) for c in api.calls][:3] == [
        ("getMe", True, None),
        ("sendMessage", False, 502),
        ("getMe", False, 502),
    ]


async def test_a_refusing_outage_drops_its_first_call_and_listens_again_on_the_same_port(
    api: FakeBotApi,
) -> None:
    port = api.port
    api.go_down(from_method="sendMessage", seconds=1.0, refuse=True)

    with pytest.raises(aiohttp.ClientError):
        await call(api, "sendMessage")
    with pytest.raises(aiohttp.ClientConnectionError):
        await call(api, "getMe")
    await until_answered(api, within=10)

    assert api.port == port
