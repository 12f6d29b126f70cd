"""aiogram's failures in the Messenger port's terms: Telegram's own description, its error_code
(None for a network failure) and retry_after, for the core to classify."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiogram.exceptions import (
    AiogramError,
    ClientDecodeError,
    TelegramAPIError,
    TelegramBadRequest,
    TelegramConflictError,
    TelegramEntityTooLarge,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramServerError,
    TelegramUnauthorizedError,
)

from ports.messenger import MessengerError

_TOKEN_IN_URL = re.compile(r"/bot[0-9]+:[A-Za-z0-9_-]+/")
_ORIGINAL = "\nOriginal description: "
_STATUS: tuple[tuple[type[TelegramAPIError], int], ...] = (
    (TelegramEntityTooLarge, 413),
    (TelegramBadRequest, 400),
    (TelegramUnauthorizedError, 401),
    (TelegramForbiddenError, 403),
    (TelegramNotFound, 404),
    (TelegramConflictError, 409),
    (TelegramServerError, 500),
)


def to_messenger_error(error: AiogramError) -> MessengerError:
    """Telegram's verdict in the port's terms; code None means "no answer" (network, garbled)."""
    translated = _translate(error)
    # A network error names the request URL, which carries the bot token; the description ends up
    # in logs, the dead-letter table and the 💥 line a user reads.
    translated.description = _TOKEN_IN_URL.sub("/bot<token>/", translated.description)
    translated.args = (translated.description,)
    return translated


def _translate(error: AiogramError) -> MessengerError:
    if isinstance(error, TelegramRetryAfter):
        return MessengerError(_original(error.message), 429, float(error.retry_after))
    if isinstance(error, TelegramMigrateToChat):
        return MessengerError(_original(error.message), 400, migrate_to_chat_id=error.migrate_to_chat_id)
    if isinstance(error, TelegramAPIError):
        for kind, code in _STATUS:
            if isinstance(error, kind):
                return MessengerError(error.message, code)
        if isinstance(error, TelegramNetworkError):
            return MessengerError(error.message)
        return MessengerError(error.message)
    if isinstance(error, ClientDecodeError):
        return MessengerError(f"undecodable Bot API answer: {error.message}")
    return MessengerError(str(error))


def _original(message: str) -> str:
    """aiogram prefixes 429/migration texts with its own sentence; keep Telegram's."""
    return message.split(_ORIGINAL, 1)[1] if _ORIGINAL in message else message


@asynccontextmanager
async def translated() -> AsyncIterator[None]:
    try:
        yield
    except AiogramError as error:
        raise to_messenger_error(error) from error
