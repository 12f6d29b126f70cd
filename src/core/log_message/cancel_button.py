"""The 🚫 Cancel button under a private chat's live log message: signed for that very message
(core.trust), so a press names the job only from where the bot put the button. It is shown with
the job's next edit once the message exists, and the last edit (the job settled) takes it away."""

from __future__ import annotations

from core.trust.buttons import SignedButton, SignedButtons
from core.trust.callback_data import ButtonRef
from ports.messenger import Keyboard

CANCEL_JOB = "cancel_job"
"""The button's action; its object is the job's id."""
PRESSED_PREFIX = f"{CANCEL_JOB}:"
"""How the callback data of a press on it begins (core.trust.callback_data's shape)."""


class CancelButtons:
    def __init__(self, buttons: SignedButtons) -> None:
        self._buttons = buttons

    async def keyboard(self, chat_id: int, message_id: int, *, job_id: int, label: str) -> Keyboard:
        """`label`: the button's words, in the chat's language."""
        button = SignedButton(label, ButtonRef(CANCEL_JOB, str(job_id)))
        return await self._buttons.keyboard(chat_id, message_id, [[button]])
