"""/cancel as a reply to a link or to the bot's message about it, `/cancel all`, and the 🚫 button
under a private chat's log message."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.enums import ChatType
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message

from core import texts
from core.chat_settings.service import ChatSettingsService
from core.chat_settings.who_may_change import Asker
from core.incoming.cancelling import CancelAsk, Cancellations, CancelOutcome, CancelReport
from core.log_message.cancel_button import PRESSED_PREFIX
from core.texts.words import Words
from entrypoints.bot.handlers.confirmations import press_of
from entrypoints.bot.handlers.speech import words_for, words_for_press


def setup() -> Router:
    router = Router(name="cancel")
    router.message.register(on_cancel, Command("cancel"))
    router.callback_query.register(on_cancel_press, F.data.startswith(PRESSED_PREFIX))
    return router


async def on_cancel_press(
    callback_query: CallbackQuery, cancellations: Cancellations, chat_settings: ChatSettingsService
) -> None:
    """Its log message says 🚫 itself; the tap is answered so the client stops waiting."""
    outcome = await cancellations.press(press_of(callback_query))
    words = await words_for_press(callback_query, chat_settings)
    match outcome:
        case CancelOutcome.CANCELLED:
            await callback_query.answer(words.say(texts.CANCEL_DONE))
        case CancelOutcome.NOTHING:
            await callback_query.answer(words.say(texts.NO_LONGER_AVAILABLE), show_alert=True)
        case _:
            await callback_query.answer(words.say(texts.BUTTON_NOT_VALID), show_alert=True)


async def on_cancel(
    message: Message, cancellations: Cancellations, chat_settings: ChatSettingsService
) -> None:
    asker = Asker(
        chat_id=message.chat.id,
        chat_type=str(message.chat.type),
        user_id=message.from_user.id if message.from_user else message.chat.id,
        sender_chat_id=message.sender_chat.id if message.sender_chat else None,
    )
    replied = message.reply_to_message
    ask = CancelAsk(
        asker,
        replied_to=replied.message_id if replied is not None else None,
        everything=_words(message.text)[1:] == ["all"],
    )
    report = await cancellations.cancel(ask)
    words = await words_for(message, chat_settings)
    answer = _answer(report, ask, words, private=message.chat.type == ChatType.PRIVATE)
    if answer:
        await message.reply(answer)


def _words(text: str | None) -> list[str]:
    """ "/cancel all" and "/cancel@bot all" alike: the command, then its arguments."""
    return (text or "").lower().split()


def _answer(report: CancelReport, ask: CancelAsk, words: Words, *, private: bool) -> str | None:
    """In a private chat one cancelled link needs no word: its log message says 🚫 itself."""
    match report.outcome:
        case CancelOutcome.CANCELLED if ask.everything:
            return words.say(texts.CANCEL_ALL_DONE, count=report.count)
        case CancelOutcome.CANCELLED:
            return None if private else words.say(texts.CANCEL_DONE)
        case CancelOutcome.NOTHING:
            return words.say(texts.CANCEL_NOTHING)
        case CancelOutcome.NOT_YOURS:
            return words.say(texts.CANCEL_NOT_YOURS)
        case CancelOutcome.HOW:
            return words.say(texts.CANCEL_HOW)
