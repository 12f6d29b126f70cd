"""The aiogram Bot for a Bot API server: api.telegram.org, a local Bot API server, or our fake."""

from __future__ import annotations

from aiogram import Bot
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode

from adapters.system.clock import SystemClock
from adapters.telegram.flood import FloodControl
from adapters.telegram.observer import ApiObserver, UpdatesObserver
from adapters.telegram.pacing import PacingPolicy
from ports.clock import Clock
from ports.telemetry import ApiEvents, UpdateEvents

REQUEST_TIMEOUT_SECONDS = 60.0


def make_bot(
    token: str,
    api_url: str,
    local_mode: bool,
    *,
    clock: Clock | None = None,
    pacing: PacingPolicy | None = None,
    max_retries: int = 3,
    max_retry_after: float = 60.0,
    flood: FloodControl | None = None,
    events: ApiEvents | None = None,
    updates: UpdateEvents | None = None,
) -> Bot:
    """A Bot whose every call goes to `{api_url}/bot{token}/{method}` through FloodControl.

    `local_mode` marks a local Bot API server: files are passed by path, and downloads read the disk.
    `flood`: a FloodControl of the caller's (whose pacer the core asks too); else one made of
    `clock`, `pacing`, `max_retries` and `max_retry_after`.
    `events` hears of every refused call, each 429 that FloodControl waits out included;
    `updates` of every getUpdates' outcome.
    """
    session = AiohttpSession(
        api=TelegramAPIServer.from_base(api_url, is_local=local_mode), timeout=REQUEST_TIMEOUT_SECONDS
    )
    if flood is None:
        flood = FloodControl(
            clock or SystemClock(), pacing, max_retries=max_retries, max_retry_after=max_retry_after
        )
    session.middleware(flood)
    if events is not None:
        session.middleware(ApiObserver(events))  # inside FloodControl: it sees every answer
    if updates is not None:
        session.middleware(UpdatesObserver(updates))
    return Bot(token, session=session, default=DefaultBotProperties(parse_mode=ParseMode.HTML))
