"""Who the bot is to the chat service: the first call a start-up or a check makes."""

from __future__ import annotations

from typing import Protocol


class BotAccount(Protocol):
    async def identify(self) -> str:
        """The bot's @username as the chat service knows it; raises MessengerError when it refuses
        (the token) or cannot be reached (code None)."""
        ...
