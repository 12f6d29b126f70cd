"""A message (or a private edit) with links becomes jobs; the handler returns as soon as they are
durable, and the workers do the rest."""

from __future__ import annotations

import logging
from collections.abc import Collection

from aiogram import F, Router
from aiogram.enums import ChatType
from aiogram.filters import Command
from aiogram.types import Message

from core.chat_settings.service import ChatSettingsService
from core.incoming.intake.links import LinkIntake
from core.trust.migrations import may_migrate
from core.urls import extract_urls
from entrypoints.bot.handlers.link_messages import entities_of, incoming, reply_to_report
from entrypoints.bot.handlers.speech import words_for

log = logging.getLogger("vidrelay.bot")

PRIVATE = ChatType.PRIVATE.value


def setup() -> Router:
    router = Router(name="links")
    router.message.register(on_verbose, Command("verbose"))
    router.message.register(on_migration, F.migrate_to_chat_id)
    router.message.register(on_message, F.text | F.caption)
    # Groups send edits for reactions and pins too: only a private edit can mean "this link instead".
    router.edited_message.register(on_edited_message, F.chat.type == PRIVATE, F.text | F.caption)
    return router


async def on_message(
    message: Message,
    intake: LinkIntake,
    queue_cap: int,
    chat_settings: ChatSettingsService,
    last_try: bool = False,
) -> None:
    """`last_try`: the inbox's word that this update will not be handled again (see
    core.incoming.updates.lanes)."""
    report = await intake.accept(incoming(message), last_try=last_try)
    await reply_to_report(message, report, queue_cap, chat_settings)


async def on_edited_message(
    edited_message: Message,
    intake: LinkIntake,
    queue_cap: int,
    chat_settings: ChatSettingsService,
    last_try: bool = False,
) -> None:
    """An edit runs only the URLs new to the message (the handled-URL guard remembers the rest),
    and only of a message the bot read when it was sent."""
    report = await intake.accept(incoming(edited_message, edited=True), last_try=last_try)
    await reply_to_report(edited_message, report, queue_cap, chat_settings)


async def on_verbose(
    message: Message,
    intake: LinkIntake,
    queue_cap: int,
    admin_user_ids: Collection[int],
    chat_settings: ChatSettingsService,
    last_try: bool = False,
) -> None:
    """yt-dlp's full output shows the server (kernel, Python, paths, the guard's port): an admin's
    tool, in a private chat. Anyone else's link is taken as if sent without the command."""
    admin = message.from_user is not None and message.from_user.id in admin_user_ids
    if not admin or message.chat.type != PRIVATE:
        await on_message(message, intake, queue_cap, chat_settings, last_try)
        return
    if not extract_urls(message.text, entities_of(message.entities)):
        words = await words_for(message, chat_settings)
        await message.reply(words.command_usage("verbose"))
        return
    report = await intake.accept(incoming(message, verbose=True), last_try=last_try)
    await reply_to_report(message, report, queue_cap, chat_settings)


async def on_migration(message: Message, chat_settings: ChatSettingsService) -> None:
    """A job follows a migration when Telegram's error for its chat says so (see
    core.trust.migrations); the group's settings move with this notice, the one word of it."""
    old, new = message.chat.id, message.migrate_to_chat_id
    if new is not None and may_migrate(str(message.chat.type), old, new):
        log.info("group %s migrated to supergroup %s", old, new)
        await chat_settings.follow_migration(old, new)
    else:
        log.info("ignored a migration notice from chat %s: it cannot migrate to %s", old, new)
