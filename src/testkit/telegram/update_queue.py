"""The updates Telegram keeps for a bot, and the long polls that wait for them."""

from __future__ import annotations

import itertools
from typing import Any

from testkit.telegram.changes import Changes

DEFAULT_ALLOWED = frozenset(
    {
        "message",
        "edited_message",
        "channel_post",
        "edited_channel_post",
        "inline_query",
        "chosen_inline_result",
        "callback_query",
        "shipping_query",
        "pre_checkout_query",
        "poll",
        "poll_answer",
        "my_chat_member",
        "chat_join_request",
    }
)
"""What Telegram sends a bot that never named its `allowed_updates`: chat_member and reactions
only on request."""


class UpdateQueue:
    """An update stays until a getUpdates with a higher offset confirms it; a newer long poll
    supersedes the one still waiting, as when a second bot instance starts."""

    def __init__(self, changes: Changes) -> None:
        self._changes = changes
        self._updates: list[dict[str, Any]] = []
        self._next_id = itertools.count(1)
        self._allowed: frozenset[str] | None = None
        self._generation = 0
        self._pollers = 0

    @property
    def pending(self) -> int:
        return len(self._updates)

    @property
    def polling(self) -> bool:
        return self._pollers > 0

    def push(self, kind: str, payload: dict[str, Any]) -> None:
        self._updates.append({"update_id": next(self._next_id), kind: payload})
        self._changes.notify()

    def confirm(self, offset: int | None) -> None:
        if offset is None or offset == 0:
            return
        before = len(self._updates)
        if offset < 0:
            self._updates = self._updates[offset:]
        else:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        if len(self._updates) != before:
            self._changes.notify()

    def drop_pending(self) -> None:
        self._updates.clear()

    def allow(self, kinds: frozenset[str]) -> None:
        """Telegram remembers the last `allowed_updates` given, for the polls that follow."""
        self._allowed = kinds

    def deliverable(self) -> list[dict[str, Any]]:
        """The pending updates of allowed kinds; the others are dropped, as Telegram does."""
        allowed = DEFAULT_ALLOWED if self._allowed is None else self._allowed
        self._updates = [
            u for u in self._updates if any(kind in allowed for kind in u if kind != "update_id")
        ]
        return list(self._updates)

    def start_poll(self) -> int:
        """Returns the poll's generation, to tell later whether a newer poll superseded it."""
        self._generation += 1
        self._pollers += 1
        self._changes.notify()
        return self._generation

    def superseded(self, generation: int) -> bool:
        return generation != self._generation

    def end_poll(self) -> None:
        self._pollers -= 1
