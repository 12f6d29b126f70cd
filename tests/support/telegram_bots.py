"""Real aiogram Bots against the fake Bot API, and what the adapter's tests check their calls with."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from aiogram import Bot

from adapters.system.clock import SystemClock
from adapters.telegram.flood import FloodControl
from adapters.telegram.session import make_bot
from ports.messenger import MessengerError
from testkit.telegram import DEFAULT_TOKEN, FakeBotApi
from tests.support.pacing import UNPACED


async def close(bot: Bot) -> None:
    """aiogram's close() waits 250 ms for TLS connections to wind down; loopback HTTP has none."""
    client = getattr(bot.session, "_session", None)
    if client is not None:
        await client.close()


async def bot_on(api: FakeBotApi, *, local_mode: bool = False, max_retries: int = 3) -> Bot:
    return make_bot(
        DEFAULT_TOKEN,
        api.base_url,
        local_mode,
        flood=FloodControl(SystemClock(), UNPACED, max_retries=max_retries),
    )


def tiny_jpeg(width: int, height: int) -> bytes:
    """The start of a baseline JPEG: SOI, an APP0 segment, then the frame header with its size."""
    app0 = b"\xff\xe0" + (16).to_bytes(2, "big") + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof0 = (
        b"\xff\xc0" + (17).to_bytes(2, "big") + b"\x08" + height.to_bytes(2, "big") + width.to_bytes(2, "big")
    )
    return b"\xff\xd8" + app0 + sof0 + b"\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01" + b"\xff\xd9"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def refused(call: object) -> MessengerError:
    assert hasattr(call, "__await__")
    with pytest.raises(MessengerError) as caught:
        await call  # type: ignore[misc]
    return caught.value
