"""VIDRELAY_ALLOWED_CHAT_IDS: the chats the bot serves (empty: every chat).

A chat off the list that sends a link is not served, and not left guessing either: it is told
so, politely and with its own id to give the operator, at most once an hour (a busy group would
otherwise hear it for every link), and each telling is a log line, so the operator sees who
knocks. What it sent is not kept.
"""

from __future__ import annotations

import logging
from collections.abc import Collection

from ports.clock import Clock

log = logging.getLogger("vidrelay.intake")

TELL_EVERY_SECONDS = 3600.0
_REMEMBERED = 10_000
"""Chats told lately, at most: beyond it the oldest are forgotten (and may be told again)."""


class ChatAllowlist:
    def __init__(self, allowed_chat_ids: Collection[int], clock: Clock) -> None:
        self._allowed = frozenset(allowed_chat_ids)
        self._clock = clock
        self._told: dict[int, float] = {}

    def allows(self, chat_id: int) -> bool:
        return not self._allowed or chat_id in self._allowed

    def refused(self, chat_id: int, user_id: int) -> bool:
        """A link from a chat off the list: whether to tell it now (logged when so)."""
        now = self._clock.now()
        told = self._told.get(chat_id)
        if told is not None and now - told < TELL_EVERY_SECONDS:
            return False
        self._told.pop(chat_id, None)
        self._told[chat_id] = now
        while len(self._told) > _REMEMBERED:
            del self._told[next(iter(self._told))]
        log.info(
            "a chat off VIDRELAY_ALLOWED_CHAT_IDS sent a link: told it, once this hour",
            extra={"chat_id": chat_id, "user_id": user_id},
        )
        return True
