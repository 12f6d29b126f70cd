"""The BotAccount port over aiogram's getMe, and the token's shape checked before any call."""

from __future__ import annotations

from aiogram import Bot
from aiogram.exceptions import AiogramError
from aiogram.utils.token import TokenValidationError, validate_token

from adapters.telegram.messenger import to_messenger_error
from ports.bot_account import BotAccount


class TelegramAccount(BotAccount):
    def __init__(self, bot: Bot) -> None:
        self._bot = bot

    async def identify(self) -> str:
        # bot.me() keeps the answer: aiogram's polling then starts without asking getMe again.
        try:
            me = await self._bot.me()
        except AiogramError as error:
            raise to_messenger_error(error) from error
        return f"@{me.username}" if me.username else me.full_name


def token_problem(token: str) -> str | None:
    """Why `token` cannot be a bot token (aiogram refuses to build a Bot with it), or None."""
    try:
        validate_token(token)
    except TokenValidationError:
        if not token:
            return "is empty"
        return "is not a bot token: expected <bot id>:<secret>, as @BotFather gives it"
    return None
