"""Who may change a chat's settings: the user of a private chat, a group's administrators.

Asked of Telegram (`SettingsAccess`: getChatMember) and remembered for a short while
(remembered_access.py). A tap whose status cannot be read is refused (the chat may have removed
the bot, or Telegram may be down; the settings stay as they are either way).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

from ports.messenger import Messenger, MessengerError

log = logging.getLogger("vidrelay.trust")

ADMIN_STATUSES = frozenset({"creator", "administrator"})
GROUP_TYPES = frozenset({"group", "supergroup"})


@dataclass(frozen=True, slots=True)
class Asker:
    """Who taps or writes, and where: the chat's id and type come from Telegram's update."""

    chat_id: int
    chat_type: str
    user_id: int
    sender_chat_id: int | None = None
    """An anonymous administrator writes as the group itself."""

    @property
    def group(self) -> bool:
        return self.chat_type in ("group", "supergroup")


class ChangeAccess(Protocol):
    async def may_change(
        self, chat_id: int, chat_type: str, user_id: int, *, sender_chat_id: int | None = None
    ) -> bool: ...


class SettingsAccess:
    """The question as Telegram answers it, at the moment of the tap."""

    def __init__(self, messenger: Messenger) -> None:
        self._messenger = messenger

    async def may_change(
        self, chat_id: int, chat_type: str, user_id: int, *, sender_chat_id: int | None = None
    ) -> bool:
        """`sender_chat_id`: an anonymous administrator writes as the group itself."""
        if chat_type == "private":
            return chat_id == user_id
        if chat_type not in GROUP_TYPES:
            return False
        if sender_chat_id == chat_id:
            return True
        try:
            status = await self._messenger.member_status(chat_id, user_id)
        except MessengerError as error:
            log.info("refused a settings change: status unknown", exc_info=error, extra={"chat_id": chat_id})
            return False
        if status not in ADMIN_STATUSES:
            log.info("refused a settings change by a non-administrator", extra={"chat_id": chat_id})
            return False
        return True
