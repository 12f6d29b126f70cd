"""The aiogram Bot for a Bot API server: api.telegram.org, a local Bot API server, or our fake."""

from __future__ import annotations

import os
from typing import Any

from aiogram import Bot, __version__
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode
from aiohttp import ClientSession
from aiohttp.hdrs import USER_AGENT

from adapters.telegram.flood import FloodControl
from adapters.telegram.observer import ApiObserver, UpdatesObserver
from ports.telemetry import ApiEvents, UpdateEvents

REQUEST_TIMEOUT_SECONDS = 60.0


class NamedSession(AiohttpSession):
    """Every request says which process made it (its User-Agent, `vidrelay (pid N)`): Telegram
    pays no attention, but a proxy's log, or our fake's call log, tells the processes of one
    deployment apart (which worker made a call, and when)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.agent = f"vidrelay (pid {os.getpid()}) aiogram/{__version__}"

    async def create_session(self) -> ClientSession:
        session = await super().create_session()
        session.headers[USER_AGENT] = self.agent
        return session


def make_bot(
    token: str,
    api_url: str,
    local_mode: bool,
    *,
    flood: FloodControl,
    events: ApiEvents | None = None,
    updates: UpdateEvents | None = None,
) -> Bot:
    """A Bot whose every call goes to `{api_url}/bot{token}/{method}` through `flood` (whose
    pacer the core asks too before it sends).

    `local_mode` marks a local Bot API server: files are passed by path, and downloads read the disk.
    `events` hears of every refused call, each 429 that FloodControl waits out included;
    `updates` of every getUpdates' outcome.
    """
    session = NamedSession(
        api=TelegramAPIServer.from_base(api_url, is_local=local_mode), timeout=REQUEST_TIMEOUT_SECONDS
    )
    session.middleware(flood)
    if events is not None:
        session.middleware(ApiObserver(events))  # inside FloodControl: it sees every answer
    if updates is not None:
        session.middleware(UpdatesObserver(updates))
    return Bot(token, session=session, default=DefaultBotProperties(parse_mode=ParseMode.HTML))
