"""Telegram's updates as the inbox keeps them, and the getUpdates long poll as the UpdateFeed.

An update is kept as the JSON Telegram sent (aiogram reads it back when it is handled, fields it
does not know included), in a lane: the chat it happens in, or the user for what has no chat (an
inline query, a chosen result), so one chat's updates are handled in order and other chats' at
the same time.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from aiogram import Bot
from aiogram.exceptions import AiogramError
from aiogram.methods import GetUpdates
from aiogram.types import Update

from adapters.telegram.errors import to_messenger_error
from ports.inbox import RawUpdate
from ports.updates import UpdateFeed

_SLACK_SECONDS = 10
"""A long poll's HTTP request may take this much longer than the poll's own timeout."""


def raw_update(update: Update) -> RawUpdate:
    body = update.model_dump(mode="json", exclude_unset=True, by_alias=True)
    # ASCII escapes: a lone surrogate or a NUL someone put in a text or a button's data stays
    # storable text on either store (one unstorable update would hold back its whole batch).
    return RawUpdate(update.update_id, lane_of(body), json.dumps(body, separators=(",", ":")))


def raw_update_of_json(body: object) -> RawUpdate:
    """An update as a webhook request carries it (decoded JSON). ValueError (TypeError: not even a
    JSON object) when it is not one."""
    if not isinstance(body, dict):
        raise TypeError("not a Telegram update: not a JSON object")
    return raw_update(Update.model_validate(body))


def lane_of(body: dict[str, Any]) -> str:
    """The chat an update happens in (`chat:<id>`), else its sender (`user:<id>`), else one lane
    for all the rest."""
    for kind, event in body.items():
        if kind == "update_id" or not isinstance(event, dict):
            continue
        chat = _chat_of(event)
        if chat is not None:
            return f"chat:{chat}"
        sender = event.get("from")
        if isinstance(sender, dict) and isinstance(sender.get("id"), int):
            return f"user:{sender['id']}"
    return "other"


def _chat_of(event: dict[str, Any]) -> int | None:
    chat = event.get("chat")
    if chat is None and isinstance(event.get("message"), dict):  # a press on a message's button
        chat = event["message"].get("chat")
    if isinstance(chat, dict) and isinstance(chat.get("id"), int):
        chat_id: int = chat["id"]
        return chat_id
    return None


def to_aiogram(update: RawUpdate, bot: Bot) -> Update:
    """The kept update as aiogram's object, bound to `bot` (so handlers can answer through it)."""
    # json.loads, not pydantic's own parser: that one refuses the escape of a lone surrogate,
    # which Telegram's own JSON (read by aiogram with json.loads too) may carry.
    return Update.model_validate(json.loads(update.body), context={"bot": bot})


class TelegramUpdates(UpdateFeed):
    def __init__(self, bot: Bot) -> None:
        self._bot = bot

    async def fetch(self, offset: int | None, timeout_seconds: int, kinds: Sequence[str]) -> list[RawUpdate]:
        method = GetUpdates(offset=offset, timeout=timeout_seconds, allowed_updates=list(kinds))
        try:
            updates = await self._bot(method, request_timeout=timeout_seconds + _SLACK_SECONDS)
        except AiogramError as error:
            raise to_messenger_error(error) from error
        return [raw_update(u) for u in updates]
