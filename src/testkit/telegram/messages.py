"""The messages the chats show (each with its edit history), and those the bot sent in inline mode."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any

from testkit.telegram.files import FileRecord
from testkit.telegram.people import User


@dataclass(frozen=True, slots=True)
class Version:
    """One state of a message: what it showed, and when it started showing it (monotonic)."""

    text: str | None
    entities: tuple[dict[str, Any], ...]
    reply_markup: dict[str, Any] | None
    at: float
    source: str | None = None
    """What the bot sent, markup included (the HTML before parsing)."""


@dataclass(slots=True)
class StoredMessage:
    chat_id: int
    message_id: int
    from_bot: bool
    sender: User
    date: int
    text: str | None = None
    entities: list[dict[str, Any]] = field(default_factory=list)
    caption: str | None = None
    caption_entities: list[dict[str, Any]] = field(default_factory=list)
    video: FileRecord | None = None
    audio: FileRecord | None = None
    document: FileRecord | None = None
    reply_to: int | None = None
    reply_markup: dict[str, Any] | None = None
    silent: bool = False
    link_preview_disabled: bool = False
    parse_mode: str | None = None
    deleted: bool = False
    deleted_by_bot: bool = False
    edit_date: int | None = None
    media_group_id: str | None = None
    """The album the message belongs to (sendMediaGroup)."""
    history: list[Version] = field(default_factory=list)
    """Every version, the first one included: history[-1] is what the chat shows now."""

    @property
    def texts(self) -> list[str | None]:
        """The message's text after the send and after each edit, in order."""
        return [v.text for v in self.history]

    @property
    def sources(self) -> list[str | None]:
        """The same, as the bot sent them (HTML markup included)."""
        return [v.source for v in self.history]

    @property
    def edits(self) -> int:
        return len(self.history) - 1


@dataclass(slots=True)
class InlineMessage:
    """A message a user sent through the bot's inline mode: the bot can edit it, but not read it."""

    inline_message_id: str
    user: User
    result_id: str
    query: str
    reply_markup: dict[str, Any] | None = None
    media: FileRecord | None = None
    text: str | None = None
    """What it shows: the chosen result's text, or the caption of the media swapped in."""
    texts: list[str | None] = field(default_factory=list)
    """Every text it showed, the first one included: texts[-1] is what it shows now."""


class MessageStore:
    """Each chat's messages by id; ids count from 1 in every chat."""

    def __init__(self) -> None:
        self._by_chat: dict[int, dict[int, StoredMessage]] = {}
        self._next_id: dict[int, itertools.count[int]] = {}

    def get(self, chat_id: int, message_id: int) -> StoredMessage | None:
        return self._by_chat.get(chat_id, {}).get(message_id)

    def in_chat(self, chat_id: int) -> list[StoredMessage]:
        return list(self._by_chat.get(chat_id, {}).values())

    def add(
        self,
        chat_id: int,
        sender: User,
        *,
        from_bot: bool,
        text: str | None = None,
        entities: list[dict[str, Any]] | None = None,
        reply_to: int | None = None,
        reply_markup: dict[str, Any] | None = None,
        source: str | None = None,
    ) -> StoredMessage:
        message_id = next(self._next_id.setdefault(chat_id, itertools.count(1)))
        message = StoredMessage(
            chat_id=chat_id,
            message_id=message_id,
            from_bot=from_bot,
            sender=sender,
            date=int(time.time()),
            text=text,
            entities=list(entities or []),
            reply_to=reply_to,
            reply_markup=reply_markup,
        )
        shown = source if from_bot else text
        message.history.append(Version(text, tuple(message.entities), reply_markup, time.monotonic(), shown))
        self._by_chat.setdefault(chat_id, {})[message_id] = message
        return message
