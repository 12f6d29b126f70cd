"""/settings: the panel of a chat's choices, and the presses on its buttons.

Registered before the other button routers: it takes the presses whose data names a settings
action (and only those); the service refuses any it did not sign for the pressed panel.
"""

from __future__ import annotations

import logging

from aiogram import F, Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message

from core.chat_settings.choices import PREFIX
from core.chat_settings.service import ChatSettingsService
from core.chat_settings.who_may_change import Asker
from entrypoints.bot.handlers.confirmations import press_of
from ports.messenger import MessengerError

log = logging.getLogger("vidrelay.bot")


def setup() -> Router:
    router = Router(name="settings")
    router.message.register(on_settings, Command("settings"))
    router.callback_query.register(on_press, F.data.startswith(PREFIX))
    return router


async def on_settings(message: Message, chat_settings: ChatSettingsService) -> None:
    asker = Asker(
        chat_id=message.chat.id,
        chat_type=str(message.chat.type),
        # A channel's post or an anonymous admin has no sender but the chat itself.
        user_id=message.from_user.id if message.from_user else message.chat.id,
        sender_chat_id=message.sender_chat.id if message.sender_chat else None,
    )
    app_language = message.from_user.language_code if message.from_user else None
    try:
        await chat_settings.show(asker, reply_to=message.message_id, app_language=app_language)
    except MessengerError as error:
        log.warning("could not post a settings panel", exc_info=error, extra={"chat_id": asker.chat_id})


async def on_press(callback_query: CallbackQuery, chat_settings: ChatSettingsService) -> None:
    press = press_of(callback_query)
    message = callback_query.message
    asker = Asker(
        chat_id=message.chat.id if message is not None else 0,
        chat_type=str(message.chat.type) if message is not None else "",
        user_id=callback_query.from_user.id,
    )
    answer = await chat_settings.press(press, asker, app_language=callback_query.from_user.language_code)
    await callback_query.answer(answer.text, show_alert=answer.alert)
