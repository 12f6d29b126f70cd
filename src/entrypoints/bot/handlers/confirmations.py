"""The 👍/👎 buttons under a long video's "are you sure?" prompt, and every other button press.

Registered last among the button routers: a press no other conversation claims lands here, and
data the bot did not sign for the pressed message is answered, never acted on.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery, Message

from core import texts
from core.chat_settings.service import ChatSettingsService
from core.incoming.confirmations import Confirmations, Decision
from core.trust.buttons import Press
from entrypoints.bot.handlers.speech import words_for_press

_ANSWERS: dict[Decision, tuple[str, bool]] = {
    Decision.CONFIRMED: (texts.PRESS_CONFIRMED, False),
    Decision.CANCELLED: (texts.PRESS_CANCELLED, False),
    Decision.NOT_REQUESTER: (texts.PRESS_NOT_REQUESTER, True),
    Decision.GONE: (texts.NO_LONGER_AVAILABLE, True),
    Decision.INVALID: (texts.BUTTON_NOT_VALID, True),
}
_CLOSING_LINES = {Decision.CONFIRMED: texts.PROMPT_CONFIRMED, Decision.CANCELLED: texts.PROMPT_CANCELLED}


def setup() -> Router:
    router = Router(name="confirmations")
    router.callback_query.register(on_press)
    return router


def press_of(callback_query: CallbackQuery) -> Press:
    """Where the pressed message is comes from Telegram; the data comes from the client."""
    message = callback_query.message
    return Press(
        data=callback_query.data or "",
        chat_id=message.chat.id if message is not None else None,
        message_id=message.message_id if message is not None else None,
        user_id=callback_query.from_user.id,
    )


async def on_press(
    callback_query: CallbackQuery, confirmations: Confirmations, chat_settings: ChatSettingsService
) -> None:
    """Anyone in the chat may confirm (the prompt asks the chat); only the sender may cancel."""
    decision = await confirmations.press(press_of(callback_query))
    words = await words_for_press(callback_query, chat_settings)
    text, alert = _ANSWERS[decision]
    await callback_query.answer(words.say(text), show_alert=alert)
    line = _CLOSING_LINES.get(decision)
    if line is not None:
        await _close_prompt(callback_query, words.say(line))


async def _close_prompt(callback_query: CallbackQuery, line: str) -> None:
    """The buttons go with the decision, so a second tap cannot decide twice."""
    message = callback_query.message
    if isinstance(message, Message):
        await message.edit_text(f"{message.html_text}\n{line}", reply_markup=None)
