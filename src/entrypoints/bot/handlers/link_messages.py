"""A Telegram message as the intake reads it, and the intake's report as the user hears it: the
edge the link conversations (links.py, audio.py) share."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from aiogram.enums import ChatType
from aiogram.types import Message, MessageEntity, ReactionTypeEmoji

from core import texts
from core.chat_settings.service import ChatSettingsService
from core.incoming.intake.message import IncomingMessage, IntakeReport
from core.texts import reactions
from core.texts.words import Words
from core.urls import Entity
from entrypoints.bot.handlers.speech import words_for

PRIVATE = ChatType.PRIVATE.value


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
        entities=entities_of(entities),
        verbose=verbose,
        edited=edited,
        audio=audio,
        posted_at=_posted_at(message, edited),
        app_language=message.from_user.language_code if message.from_user else None,
    )


def _posted_at(message: Message, edited: bool) -> float | None:
    """Telegram's date of the message, or of the edit that brought the link."""
    date = message.edit_date if edited and message.edit_date is not None else message.date
    return date.timestamp() if isinstance(date, datetime) else None


def entities_of(entities: Sequence[MessageEntity] | None) -> list[Entity]:
    return [Entity(str(e.type), e.offset, e.length) for e in entities or ()]


async def reply_to_report(
    message: Message, report: IntakeReport, queue_cap: int, chat_settings: ChatSettingsService
) -> None:
    """A full queue is said everywhere (the user must know the link was not taken), and so is a
    link the store would not take however long it was tried (a reaction in groups); refused
    addresses are explained in private chats and met with silence in groups. In the chat's
    language, read only when there is something to say."""
    private = message.chat.type == PRIVATE
    if not (report.tell_not_allowed or report.queue_full or report.limited or report.not_kept) and not (
        private and report.refused
    ):
        return
    words = await words_for(message, chat_settings)
    if report.tell_not_allowed:  # in groups too: the group's id is what the operator needs
        await message.reply(words.say(texts.NOT_ALLOWED, chat_id=message.chat.id))
    if report.queue_full:
        await message.reply(words.say(texts.QUEUE_FULL, limit=queue_cap))
    if report.limited is not None:
        hit = report.limited
        await message.reply(words.link_limit(hit.limit, hit.window_seconds, hit.wait_seconds, hit.until))
    if report.not_kept:
        await _ask_to_send_again(message, words)
    if not private:
        return
    for url, why in report.refused:
        await message.reply(words.refused_url(url, why))


async def _ask_to_send_again(message: Message, words: Words) -> None:
    if message.chat.type == PRIVATE:
        await message.reply(words.say(texts.SEND_AGAIN_LATER))
    else:
        await message.react([ReactionTypeEmoji(emoji=reactions.BUSY)])
