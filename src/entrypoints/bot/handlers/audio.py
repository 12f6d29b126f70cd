"""/audio <url>: the link's sound, whatever the chat chose; /video <url>: its video, likewise."""

from __future__ import annotations

from aiogram import Router
from aiogram.enums import ChatType
from aiogram.filters import Command
from aiogram.types import Message

from core import texts
from core.incoming.intake.links import LinkIntake
from core.urls import extract_urls
from entrypoints.bot.handlers.link_messages import incoming, reply_to_report


def setup() -> Router:
    router = Router(name="audio")
    router.message.register(on_audio, Command("audio"))
    router.message.register(on_video, Command("video"))
    return router


async def on_audio(message: Message, intake: LinkIntake, queue_cap: int, last_try: bool = False) -> None:
    await _take(message, intake, queue_cap, audio=True, last_try=last_try)


async def on_video(message: Message, intake: LinkIntake, queue_cap: int, last_try: bool = False) -> None:
    await _take(message, intake, queue_cap, audio=False, last_try=last_try)


async def _take(message: Message, intake: LinkIntake, queue_cap: int, *, audio: bool, last_try: bool) -> None:
    asked = incoming(message, audio=audio)
    if not extract_urls(asked.text, asked.entities):
        if message.chat.type == ChatType.PRIVATE:  # a group hears nothing but videos
            await message.reply(texts.command_usage("audio" if audio else "video"))
        return
    await reply_to_report(message, await intake.accept(asked, last_try=last_try), queue_cap)
