"""The Telegram adapter's fixtures: an aiogram Bot on the fake Bot API, the messenger over it, a clip."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiogram import Bot

from adapters.telegram.messenger import TelegramMessenger
from testkit.telegram import FakeBotApi
from tests.support.telegram_bots import bot_on, close


@pytest.fixture
async def bot(api: FakeBotApi) -> AsyncIterator[Bot]:
    bot = await bot_on(api)
    yield bot
    await close(bot)


@pytest.fixture
def messenger(bot: Bot) -> TelegramMessenger:
    return TelegramMessenger(bot, local_mode=False)


@pytest.fixture
def clip(tmp_path: Path) -> Path:
    path = tmp_path / "clip.mp4"
    path.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 40)
    return path
