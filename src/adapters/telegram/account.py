"""The BotAccount port over aiogram (getMe, setMyCommands, get/deleteWebhook), and the token's
shape checked before any call."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from aiogram import Bot
from aiogram.exceptions import AiogramError
from aiogram.types import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeChat,
    BotCommandScopeDefault,
    BotCommandScopeUnion,
)
from aiogram.utils.token import TokenValidationError, validate_token

from adapters.telegram.errors import to_messenger_error
from ports.bot_account import BotAccount, BotProfile, CommandMenu, WebhookState

T = TypeVar("T")


class TelegramAccount(BotAccount):
    def __init__(self, bot: Bot) -> None:
        self._bot = bot

    async def identify(self) -> str:
        return (await self.profile()).name

    async def profile(self) -> BotProfile:
        # bot.me() keeps the answer: aiogram's polling then starts without asking getMe again.
        me = await _answer(self._bot.me())
        name = f"@{me.username}" if me.username else me.full_name
        return BotProfile(name, reads_group_messages=bool(me.can_read_all_group_messages))

    async def publish_commands(self, menu: CommandMenu) -> None:
        commands = [BotCommand(command=c.command, description=c.description) for c in menu.commands]
        await _answer(
            self._bot.set_my_commands(commands, scope=_scope(menu), language_code=menu.language or None)
        )

    async def webhook(self) -> WebhookState:
        info = await _answer(self._bot.get_webhook_info())
        failed_at = info.last_error_date.timestamp() if info.last_error_date is not None else None
        return WebhookState(info.url, info.pending_update_count, info.last_error_message, failed_at)

    async def drop_webhook(self) -> None:
        await _answer(self._bot.delete_webhook(drop_pending_updates=False))


def _scope(menu: CommandMenu) -> BotCommandScopeUnion:
    match menu.scope:
        case "chat":
            assert menu.chat_id is not None, "a chat menu names its chat"
            return BotCommandScopeChat(chat_id=menu.chat_id)
        case "all_private_chats":
            return BotCommandScopeAllPrivateChats()
        case "all_group_chats":
            return BotCommandScopeAllGroupChats()
        case "default":
            return BotCommandScopeDefault()


async def _answer(call: Awaitable[T]) -> T:
    try:
        return await call
    except AiogramError as error:
        raise to_messenger_error(error) from error


def token_problem(token: str) -> str | None:
    """Why `token` cannot be a bot token (aiogram refuses to build a Bot with it), or None."""
    try:
        validate_token(token)
    except TokenValidationError:
        if not token:
            return "is empty"
        return "is not a bot token: expected <bot id>:<secret>, as @BotFather gives it"
    return None
