"""Inline keyboards whose callback data the bot signed for the message they sit under.

The message id is part of what is signed, and Telegram tells it only once the message exists, so
a prompt goes out without buttons and gets them by an edit. That order cannot be raced: until the
edit, no button exists to be pressed, and no press is ever checked against a record still being
written (signing over what is known and storing the message id afterwards would leave a window in
which a genuine press is refused, and a crash in it would strand the prompt).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from core.trust.callback_data import ButtonRef, sign_button, verify_button
from core.trust.keys import InstallKeys
from ports.messenger import Button, Keyboard, Messenger, MessengerError

log = logging.getLogger("vidrelay.trust")

PURPOSE = "callback_data"


@dataclass(frozen=True, slots=True)
class SignedButton:
    text: str
    ref: ButtonRef


@dataclass(frozen=True, slots=True)
class Press:
    """A button press as Telegram reports it: the data, and where the pressed message is."""

    data: str
    chat_id: int | None
    message_id: int | None
    user_id: int


class SignedButtons:
    def __init__(self, keys: InstallKeys) -> None:
        self._keys = keys

    async def keyboard(
        self, chat_id: int, message_id: int, rows: Sequence[Sequence[SignedButton]]
    ) -> Keyboard:
        key = await self._keys.key(PURPOSE)
        return [[Button(b.text, sign_button(key, b.ref, chat_id, message_id)) for b in row] for row in rows]

    async def verify(self, press: Press) -> ButtonRef | None:
        """What the press asks for, when its data was signed for the very message pressed."""
        if press.chat_id is None or press.message_id is None:
            found = None  # a button under an inline message: the bot signs none
        else:
            found = verify_button(await self._keys.key(PURPOSE), press.data, press.chat_id, press.message_id)
        if found is None:
            log.info(
                "refused a button press: data not signed for this message",
                extra={"chat_id": press.chat_id, "message_id": press.message_id, "user_id": press.user_id},
            )
        return found

    async def post(
        self,
        messenger: Messenger,
        chat_id: int,
        text: str,
        rows: Sequence[Sequence[SignedButton]],
        *,
        reply_to: int | None = None,
    ) -> int:
        """Send `text`, then put the signed buttons under it; the message id. MessengerError if
        either call fails (then the message, if it went out, is deleted: a prompt without its
        buttons would only confuse)."""
        message_id = await messenger.send_text(chat_id, text, reply_to=reply_to)
        try:
            await messenger.edit_keyboard(chat_id, message_id, await self.keyboard(chat_id, message_id, rows))
        except MessengerError:
            try:
                await messenger.delete_message(chat_id, message_id)
            except MessengerError as error:
                log.warning("could not delete a prompt left without buttons", exc_info=error)
            raise
        return message_id
