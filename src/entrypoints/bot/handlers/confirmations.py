"""The 👍/👎 buttons under a long video's "are you sure?" prompt."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.types import CallbackQuery, Message

from core import texts
from core.pipeline.confirm import Confirmations, Decision


def setup() -> Router:
    router = Router(name="confirmations")
    router.callback_query.register(on_confirm, F.data.startswith("confirm:"))
    router.callback_query.register(on_cancel, F.data.startswith("cancel:"))
    return router


def _pending_id(callback_query: CallbackQuery) -> str:
    return (callback_query.data or "").split(":", 1)[1]


async def on_confirm(callback_query: CallbackQuery, confirmations: Confirmations) -> None:
    """Anyone in the chat may confirm: the prompt asks the chat, not only the sender."""
    decision = await confirmations.confirm(_pending_id(callback_query))
    if decision is Decision.CONFIRMED:
        await callback_query.answer("👍 On it!")
        await _close_prompt(callback_query, "👍 Downloading it.")
    else:
        await callback_query.answer(texts.NO_LONGER_AVAILABLE, show_alert=True)


async def on_cancel(callback_query: CallbackQuery, confirmations: Confirmations) -> None:
    decision = await confirmations.cancel(_pending_id(callback_query), callback_query.from_user.id)
    if decision is Decision.CANCELLED:
        await callback_query.answer("👎 Cancelled.")
        await _close_prompt(callback_query, "👎 Cancelled.")
    elif decision is Decision.NOT_REQUESTER:
        await callback_query.answer("Only the person who sent the link can cancel.", show_alert=True)
    else:
        await callback_query.answer(texts.NO_LONGER_AVAILABLE, show_alert=True)


async def _close_prompt(callback_query: CallbackQuery, line: str) -> None:
    """The buttons go with the decision, so a second tap cannot decide twice."""
    message = callback_query.message
    if isinstance(message, Message):
        await message.edit_text(f"{message.html_text}\n{line}", reply_markup=None)
