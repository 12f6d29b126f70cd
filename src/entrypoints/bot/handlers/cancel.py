"""/cancel as a reply to a link or to the bot's message about it, and `/cancel all`."""

from __future__ import annotations

from aiogram import Router
from aiogram.enums import ChatType
from aiogram.filters import Command
from aiogram.types import Message

from core import texts
from core.chat_settings.who_may_change import Asker
from core.incoming.cancelling import CancelAsk, Cancellations, CancelOutcome, CancelReport


def setup() -> Router:
    router = Router(name="cancel")
    router.message.register(on_cancel, Command("cancel"))
    return router


async def on_cancel(message: Message, cancellations: Cancellations) -> None:
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
    answer = _answer(await cancellations.cancel(ask), ask, private=message.chat.type == ChatType.PRIVATE)
    if answer:
        await message.reply(answer)


def _words(text: str | None) -> list[str]:
    """ "/cancel all" and "/cancel@bot all" alike: the command, then its arguments."""
    return (text or "").lower().split()


def _answer(report: CancelReport, ask: CancelAsk, *, private: bool) -> str | None:
    """In a private chat one cancelled link needs no word: its log message says 🚫 itself."""
    match report.outcome:
        case CancelOutcome.CANCELLED if ask.everything:
            return texts.cancelled_all(report.count)
        case CancelOutcome.CANCELLED:
            return None if private else texts.CANCEL_DONE
        case CancelOutcome.NOTHING:
            return texts.CANCEL_NOTHING
        case CancelOutcome.NOT_YOURS:
            return texts.CANCEL_NOT_YOURS
        case CancelOutcome.HOW:
            return texts.CANCEL_HOW
