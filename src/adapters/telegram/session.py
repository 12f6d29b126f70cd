"""The aiogram Bot for a Bot API server: api.telegram.org, a local Bot API server, or our fake."""

from __future__ import annotations

from aiogram import Bot
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode

from adapters.telegram.flood import FloodControl
from adapters.telegram.observer import ApiObserver, UpdatesObserver
from ports.telemetry import ApiEvents, UpdateEvents

REQUEST_TIMEOUT_SECONDS = 60.0


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
    session = AiohttpSession(
        api=TelegramAPIServer.from_base(api_url, is_local=local_mode), timeout=REQUEST_TIMEOUT_SECONDS
    )
    session.middleware(flood)
    if events is not None:
        session.middleware(ApiObserver(events))  # inside FloodControl: it sees every answer
    if updates is not None:
        session.middleware(UpdatesObserver(updates))
    return Bot(token, session=session, default=DefaultBotProperties(parse_mode=ParseMode.HTML))
