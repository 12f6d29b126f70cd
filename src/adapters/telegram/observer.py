"""Every Bot API call's refusal, reported to ApiEvents: errors by code, and 429s with their wait.

Registered inside FloodControl, so it sees each answer Telegram gave, the 429s FloodControl then
waits out and tries again included.
"""

from __future__ import annotations

from aiogram import Bot
from aiogram.client.session.middlewares.base import BaseRequestMiddleware, NextRequestMiddlewareType
from aiogram.exceptions import AiogramError, TelegramRetryAfter
from aiogram.methods import Response, TelegramMethod
from aiogram.methods.base import TelegramType

from adapters.telegram.errors import to_messenger_error
from ports.telemetry import ApiEvents, UpdateEvents


class ApiObserver(BaseRequestMiddleware):
    def __init__(self, events: ApiEvents) -> None:
        self._events = events

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        try:
            return await make_request(bot, method)
        except AiogramError as error:
            self._events.api_error(method.__api_method__, to_messenger_error(error).code)
            if isinstance(error, TelegramRetryAfter):
                self._events.flood_wait(float(error.retry_after))
            raise


class UpdatesObserver(BaseRequestMiddleware):
    """Every getUpdates' outcome, reported to UpdateEvents: the freshness `/healthz` judges."""

    def __init__(self, events: UpdateEvents) -> None:
        self._events = events

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        if method.__api_method__ != "getUpdates":
            return await make_request(bot, method)
        try:
            answer = await make_request(bot, method)
        except AiogramError as error:
            refused = to_messenger_error(error)
            code = f"{refused.code} " if refused.code is not None else ""
            self._events.updates_failed(f"getUpdates failed: {code}{refused.description}")
            raise
        self._events.updates_received()
        return answer
