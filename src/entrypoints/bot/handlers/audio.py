"""/audio <url>: the link's sound, whatever the chat chose; /video <url>: its video, likewise."""

from __future__ import annotations

from aiogram import Router
from aiogram.enums import ChatType
from aiogram.filters import Command
from aiogram.types import Message

from core.chat_settings.service import ChatSettingsService
from core.incoming.intake.links import LinkIntake
from core.urls import extract_urls
from entrypoints.bot.handlers.link_messages import incoming, reply_to_report
from entrypoints.bot.handlers.speech import words_for


def setup() -> Router:
    router = Router(name="audio")
    router.message.register(on_audio, Command("audio"))
    router.message.register(on_video, Command("video"))
    return router


async def on_audio(
    message: Message,
    intake: LinkIntake,
    queue_cap: int,
    chat_settings: ChatSettingsService,
    last_try: bool = False,
) -> None:
    await _take(message, intake, queue_cap, chat_settings, audio=True, last_try=last_try)


async def on_video(
    message: Message,
    intake: LinkIntake,
    queue_cap: int,
    chat_settings: ChatSettingsService,
    last_try: bool = False,
) -> None:
    await _take(message, intake, queue_cap, chat_settings, audio=False, last_try=last_try)


async def _take(
    message: Message,
    intake: LinkIntake,
    queue_cap: int,
    chat_settings: ChatSettingsService,
    *,
    audio: bool,
    last_try: bool,
) -> None:
    asked = incoming(message, audio=audio)
    if not extract_urls(asked.text, asked.entities):
        if message.chat.type == ChatType.PRIVATE:  # a group hears nothing but videos
            words = await words_for(message, chat_settings)
            await message.reply(words.command_usage("audio" if audio else "video"))
        return
    report = await intake.accept(asked, last_try=last_try)
    await reply_to_report(message, report, queue_cap, chat_settings)
