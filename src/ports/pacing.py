"""Telegram's flood limits as the core sees them: whose turn it is in a chat, and how long to wait."""

from __future__ import annotations

import enum
from typing import Protocol


class Turn(enum.IntEnum):
    """Who goes first when a chat's messages must wait: the lower, the sooner."""

    VIDEO = 0
    """What the user asked for: a video, a document, an album (each of its items a message)."""
    MESSAGE = 1
    """A new message: a job's log message, a reply."""
    EDIT = 2
    """A log message catching up with its job: it waits behind the others and leaves a turn spare,
    so that a video coming after it never waits for it."""


class SendPacing(Protocol):
    def wait_seconds(self, chat_id: int, turn: Turn, count: int = 1) -> float:
        """How long a message of this kind (`count` of them: an album's items) would wait for its
        turn in the chat if it were sent now (0: it would go at once). Asking takes nothing."""
        ...
