"""Who the bot is to the chat service, and how it is set up there: the first calls a start-up or
a check makes (its name, whether it reads groups, its command menus, a webhook left behind).

Every method raises MessengerError when the service refuses (code set) or cannot be reached
(code None)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol


@dataclass(frozen=True, slots=True)
class BotProfile:
    name: str
    """The @username (or the display name of a bot without one)."""
    reads_group_messages: bool
    """False while privacy mode is on: in a group the bot then sees commands and replies to it,
    not a plain message with a link (unless it is an administrator there)."""


@dataclass(frozen=True, slots=True)
class MenuCommand:
    command: str
    """Without the slash: lower-case letters, digits and underscores, at most 32."""
    description: str


MenuScope = Literal["default", "all_private_chats", "all_group_chats", "chat"]


@dataclass(frozen=True, slots=True)
class CommandMenu:
    """The commands a client's menu offers to one audience, in one language."""

    commands: Sequence[MenuCommand]
    scope: MenuScope = "default"
    chat_id: int | None = None
    """For the "chat" scope: the one chat (a user's private chat has the user's id)."""
    language: str = ""
    """Two-letter ISO 639-1 code; empty: every language without a menu of its own."""


@dataclass(frozen=True, slots=True)
class WebhookState:
    url: str
    """Empty: no webhook is set, updates wait for getUpdates."""
    pending_updates: int = 0
    last_error: str | None = None
    """The service's last failure to deliver to the webhook, as it words it."""
    last_error_at: float | None = None


class BotAccount(Protocol):
    async def identify(self) -> str:
        """The bot's @username as the chat service knows it."""
        ...

    async def profile(self) -> BotProfile: ...

    async def publish_commands(self, menu: CommandMenu) -> None: ...

    async def webhook(self) -> WebhookState: ...

    async def drop_webhook(self) -> None:
        """Remove the webhook, keeping the updates waiting for it: getUpdates hands them out."""
        ...
