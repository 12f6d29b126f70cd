"""/start, /help, /id and the admins' /status."""

from __future__ import annotations

from collections.abc import Collection

from aiogram import Router
from aiogram.enums import ChatType
from aiogram.filters import Command, CommandStart
from aiogram.types import Message

from core import texts
from core.chat_settings.service import ChatSettingsService
from core.status import StatusQuery
from entrypoints.bot.handlers.speech import words_for


def setup() -> Router:
    router = Router(name="commands")
    router.message.register(on_help, CommandStart())
    router.message.register(on_help, Command("help"))
    router.message.register(on_status, Command("status"))
    router.message.register(on_id, Command("id"))
    return router


async def on_id(message: Message, chat_settings: ChatSettingsService) -> None:
    """Anyone, anywhere: the ids VIDRELAY_ALLOWED_CHAT_IDS and VIDRELAY_ADMIN_USER_IDS ask for."""
    # A channel's post has no sender; the chat stands in for it, as in the per-user cap.
    user = message.from_user.id if message.from_user else message.chat.id
    words = await words_for(message, chat_settings)
    await message.reply(words.say(texts.IDS, user_id=user, chat_id=message.chat.id))


async def on_help(message: Message, chat_settings: ChatSettingsService) -> None:
    """Private chats only: in a group the bot posts videos and nothing else."""
    if message.chat.type == ChatType.PRIVATE:
        me = await message.bot.me() if message.bot else None
        words = await words_for(message, chat_settings)
        await message.answer(words.help(me.username if me else None))


async def on_status(
    message: Message, status: StatusQuery, admin_user_ids: Collection[int], chat_settings: ChatSettingsService
) -> None:
    """Silence for everyone else: the queue's size is the operator's business."""
    user = message.from_user
    if user is None or user.id not in admin_user_ids:
        return
    now = await status.read()
    words = await words_for(message, chat_settings)
    lines: list[tuple[str, object]] = [
        (texts.STATUS_QUEUE, now.waiting),
        (texts.STATUS_IN_FLIGHT, now.in_flight),
        (texts.STATUS_FAILED, now.failed),
        (texts.STATUS_YTDLP, now.ytdlp_version or texts.STATUS_UNKNOWN),
        (texts.STATUS_LAST_CHECK, now.last_update_check),
    ]
    await message.reply(words.status(lines))
