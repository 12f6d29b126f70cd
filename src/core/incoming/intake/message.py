"""What the handler hands the intake (a message, mapped from Telegram's) and what it gets back."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from core.incoming.intake.windows import LimitReached
from core.urls import Entity


@dataclass(frozen=True, slots=True)
class IncomingMessage:
    chat_id: int
    chat_type: str
    message_id: int
    user_id: int
    text: str | None
    entities: Sequence[Entity]
    verbose: bool = False
    edited: bool = False
    """An edit of a message sent earlier: it may re-run only a message the bot read."""
    audio: bool | None = None
    """True: the sound only (/audio); False: the video (/video); None: as the chat chose."""
    posted_at: float | None = None
    """Telegram's date of the message (of the edit, for an edit)."""
    app_language: str | None = None
    """The sender's Telegram app's language (`language_code`): a private chat's, unless it chose one."""


@dataclass
class IntakeReport:
    accepted: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    queue_full: bool = False
    limited: LimitReached | None = None
    """The user's hourly or daily link limit refused the rest of the message."""
    already_handled: list[str] = field(default_factory=list)
    not_kept: list[str] = field(default_factory=list)
    """On the update's last try the store still refused these: their sender is asked to send
    them again."""
    tell_not_allowed: bool = False
    """A chat off the allowlist sent links: tell it so (at most once an hour, see core.allowlist)."""
