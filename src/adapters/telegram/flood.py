"""Flood control for every Bot API call: pace messages (see `pacing`), honour 429 `retry_after`.

Telegram answers a burst with 429 "Too Many Requests: retry after N". Waiting N seconds and
sending again is what it asks for; pacing messages per chat and overall keeps a burst from turning
into a storm of 429s in the first place. A message's turn follows from its method: a video (or an
album, which counts a message per item) before a new message before an edit. Waits go through the
Clock port, so tests drive them in virtual time.
"""

from __future__ import annotations

import logging

from aiogram import Bot
from aiogram.client.session.middlewares.base import BaseRequestMiddleware, NextRequestMiddlewareType
from aiogram.exceptions import TelegramRetryAfter
from aiogram.methods import Response, SendMediaGroup, TelegramMethod
from aiogram.methods.base import TelegramType

from adapters.telegram.pacing import ChatPacer, PacingPolicy
from ports.clock import Clock
from ports.pacing import Turn

log = logging.getLogger(__name__)

_MESSAGE_PREFIXES = ("send", "edit", "copy", "forward")
_NOT_MESSAGES = frozenset({"sendChatAction"})
_MEDIA = frozenset({"sendVideo", "sendAudio", "sendAnimation", "sendDocument", "sendPhoto", "sendMediaGroup"})


def is_message(method: TelegramMethod[TelegramType]) -> bool:
    """Sends and edits count against Telegram's flood limits; chat actions, answers and reads do not."""
    name = method.__api_method__
    return name not in _NOT_MESSAGES and name.startswith(_MESSAGE_PREFIXES)


def paced_chat(method: TelegramMethod[TelegramType]) -> int | str | None:
    """The chat a message goes into, or None (not a message, or an inline message: no chat)."""
    if not is_message(method):
        return None
    chat_id = getattr(method, "chat_id", None)
    return chat_id if isinstance(chat_id, int | str) else None


def messages_in(method: TelegramMethod[TelegramType]) -> int:
    """Telegram counts each item of an album as a message of its own."""
    return len(method.media) if isinstance(method, SendMediaGroup) else 1


def turn_of(method: TelegramMethod[TelegramType]) -> Turn:
    name = method.__api_method__
    if name in _MEDIA:
        return Turn.VIDEO
    return Turn.EDIT if name.startswith("edit") else Turn.MESSAGE


class FloodControl(BaseRequestMiddleware):
    """Request middleware: wait for the message's turn, then on 429 wait `retry_after` and try again.

    After `max_retries` retries, or when Telegram asks for more than `max_retry_after` seconds, the
    429 goes through to the caller (whose job then waits outside of this request). `pacer` is the
    SendPacing port the core asks before it sends.
    """

    def __init__(
        self,
        clock: Clock,
        policy: PacingPolicy | None = None,
        *,
        max_retries: int = 3,
        max_retry_after: float = 60.0,
    ) -> None:
        self._clock = clock
        self.pacer = ChatPacer(clock, policy)
        self._max_retries = max_retries
        self._max_retry_after = max_retry_after

    @property
    def longest_wait_seconds(self) -> float:
        """The longest a call may wait here for Telegram's 429s before it is made or refused."""
        return self._max_retries * self._max_retry_after

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        message = is_message(method)
        chat_id = paced_chat(method)
        retries = 0
        while True:
            if message:
                await self.pacer.acquire(chat_id, turn_of(method), messages_in(method))
            try:
                return await make_request(bot, method)
            except TelegramRetryAfter as error:
                if chat_id is not None:
                    self.pacer.hold(chat_id, error.retry_after)
                if retries >= self._max_retries or error.retry_after > self._max_retry_after:
                    raise
                retries += 1
                log.warning(
                    "Telegram asked to wait %ss before the next %s",
                    error.retry_after,
                    method.__api_method__,
                    extra={"chat_id": chat_id, "retry": retries, "error": error.message},
                )
                await self._clock.sleep(error.retry_after)
