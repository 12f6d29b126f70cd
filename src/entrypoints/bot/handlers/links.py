"""A message (or a private edit) with links becomes jobs; the handler returns as soon as they are
durable, and the workers do the rest."""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from datetime import datetime

from aiogram import F, Router
from aiogram.enums import ChatType
from aiogram.filters import Command
from aiogram.types import Message, MessageEntity

from core import texts
from core.chat_settings.service import ChatSettingsService
from core.pipeline.intake import IncomingMessage, IntakeReport, LinkIntake
from core.trust.migrations import may_migrate
from core.urls import Entity, extract_urls

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


def incoming(
    message: Message, *, verbose: bool = False, edited: bool = False, audio: bool | None = None
) -> IncomingMessage:
    text = message.text if message.text is not None else message.caption
    entities = message.entities if message.text is not None else message.caption_entities
    return IncomingMessage(
        chat_id=message.chat.id,
        chat_type=str(message.chat.type),
        message_id=message.message_id,
        # A channel's post has no sender; the chat stands in for it in the per-user cap.
        user_id=message.from_user.id if message.from_user else message.chat.id,
        text=text,
        entities=_entities(entities),
        verbose=verbose,
        edited=edited,
        audio=audio,
        posted_at=_posted_at(message, edited),
    )


def _posted_at(message: Message, edited: bool) -> float | None:
    """Telegram's date of the message, or of the edit that brought the link."""
    date = message.edit_date if edited and message.edit_date is not None else message.date
    return date.timestamp() if isinstance(date, datetime) else None


def _entities(entities: Sequence[MessageEntity] | None) -> list[Entity]:
    return [Entity(str(e.type), e.offset, e.length) for e in entities or ()]


async def on_message(message: Message, intake: LinkIntake, queue_cap: int) -> None:
    await reply_to_report(message, await intake.accept(incoming(message)), queue_cap)


async def on_edited_message(edited_message: Message, intake: LinkIntake, queue_cap: int) -> None:
    """An edit runs only the URLs new to the message (the handled-URL guard remembers the rest),
    and only of a message the bot read when it was sent."""
    report = await intake.accept(incoming(edited_message, edited=True))
    await reply_to_report(edited_message, report, queue_cap)


async def on_verbose(
    message: Message, intake: LinkIntake, queue_cap: int, admin_user_ids: Collection[int]
) -> None:
    """yt-dlp's full output shows the server (kernel, Python, paths, the guard's port): an admin's
    tool, in a private chat. Anyone else's link is taken as if sent without the command."""
    admin = message.from_user is not None and message.from_user.id in admin_user_ids
    if not admin or message.chat.type != PRIVATE:
        await on_message(message, intake, queue_cap)
        return
    if not extract_urls(message.text, _entities(message.entities)):
        await message.reply(texts.verbose_usage())
        return
    await reply_to_report(message, await intake.accept(incoming(message, verbose=True)), queue_cap)


async def on_migration(message: Message, chat_settings: ChatSettingsService) -> None:
    """A job follows a migration when Telegram's error for its chat says so (see
    core.trust.migrations); the group's settings move with this notice, the one word of it."""
    old, new = message.chat.id, message.migrate_to_chat_id
    if new is not None and may_migrate(str(message.chat.type), old, new):
        log.info("group %s migrated to supergroup %s", old, new)
        await chat_settings.follow_migration(old, new)
    else:
        log.info("ignored a migration notice from chat %s: it cannot migrate to %s", old, new)


async def reply_to_report(message: Message, report: IntakeReport, queue_cap: int) -> None:
    """A full queue is said everywhere (the user must know the link was not taken); refused
    addresses are explained in private chats and met with silence in groups."""
    if report.tell_not_allowed:  # in groups too: the group's id is what the operator needs
        await message.reply(texts.not_allowed_here(message.chat.id))
    if report.queue_full:
        await message.reply(texts.queue_full(queue_cap))
    if message.chat.type != PRIVATE:
        return
    for url, why in report.refused:
        await message.reply(texts.refused_url(url, why))
