"""Who may change a chat's settings: the user of a private chat, a group's administrators.

Asked of Telegram (`SettingsAccess`: getChatMember) and remembered for a short while
(`RememberedAccess`): a panel is a handful of taps in a row, each would cost a call. An answer is
kept for REMEMBER_SECONDS, no longer: an administrator demoted a minute ago is a member now. A
tap whose status cannot be read is refused (the chat may have removed the bot, or Telegram may
be down; the settings stay as they are either way).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

from ports.clock import Clock
from ports.messenger import Messenger, MessengerError

log = logging.getLogger("vidrelay.trust")

ADMIN_STATUSES = frozenset({"creator", "administrator"})
GROUP_TYPES = frozenset({"group", "supergroup"})
REMEMBER_SECONDS = 30.0
_PRUNE_ABOVE = 1024


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


class RememberedAccess:
    def __init__(self, access: ChangeAccess, clock: Clock, *, seconds: float = REMEMBER_SECONDS) -> None:
        self._access = access
        self._clock = clock
        self._seconds = seconds
        self._answers: dict[Asker, tuple[bool, float]] = {}

    async def may_change(self, asker: Asker) -> bool:
        now = self._clock.now()
        known = self._answers.get(asker)
        if known is not None and now - known[1] < self._seconds:
            return known[0]
        allowed = await self._access.may_change(
            asker.chat_id, asker.chat_type, asker.user_id, sender_chat_id=asker.sender_chat_id
        )
        self._remember(asker, allowed, now)
        return allowed

    def _remember(self, asker: Asker, allowed: bool, now: float) -> None:
        if len(self._answers) >= _PRUNE_ABOVE:
            self._answers = {a: v for a, v in self._answers.items() if now - v[1] < self._seconds}
        self._answers[asker] = (allowed, now)


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
