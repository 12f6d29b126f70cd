"""The Bot API over plain HTTP, as a client that is not aiogram asks it: for the tests of our fake."""

from __future__ import annotations

from typing import Any

import aiohttp

from testkit.telegram import DEFAULT_TOKEN, FakeBotApi


async def call(
    http: aiohttp.ClientSession,
    api: FakeBotApi,
    method: str,
    *,
    token: str = DEFAULT_TOKEN,
    verb: str = "POST",
    **kwargs: Any,
) -> tuple[int, dict[str, Any]]:
    url = f"{api.base_url}/bot{token}/{method}"
    async with http.request(verb, url, timeout=aiohttp.ClientTimeout(total=10), **kwargs) as response:
        return response.status, await response.json()


def error(body: dict[str, Any]) -> tuple[int, str]:
    assert body["ok"] is False
    return body["error_code"], body["description"]
