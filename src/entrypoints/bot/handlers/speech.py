"""The words a handler answers in: the chat's language, as core.texts.languages chooses it."""

from __future__ import annotations

from aiogram.types import CallbackQuery, Message

from core.chat_settings.service import ChatSettingsService
from core.texts.words import Words


async def words_for(message: Message, chat_settings: ChatSettingsService) -> Words:
    user = message.from_user
    app_language = user.language_code if user is not None else None
    return await chat_settings.words(message.chat.id, str(message.chat.type), app_language)


async def words_for_press(callback_query: CallbackQuery, chat_settings: ChatSettingsService) -> Words:
    """The pressed message's chat's words (the presser's app's language for an inline message's)."""
    message = callback_query.message
    chat_id, chat_type = (message.chat.id, str(message.chat.type)) if message is not None else (0, "private")
    return await chat_settings.words(chat_id, chat_type, callback_query.from_user.language_code)
