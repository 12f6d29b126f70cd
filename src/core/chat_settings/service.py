"""/settings: the panel a chat changes its choices with, and the choices a link is handled by.

A press counts only when its data is the bot's own signature for the very panel pressed (see
core.trust.buttons), and only from someone who may change the chat's settings: the user of a
private chat, a group's administrators. Two taps at once (two admins) are applied one after the
other, so neither change is lost.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from core import texts
from core.chat_settings.choices import ACTIONS, DONE, changed
from core.chat_settings.panel import field_answer, panel
from core.chat_settings.remembered_access import RememberedAccess
from core.chat_settings.who_may_change import Asker
from core.media.keyed_lock import KeyedLock
from core.texts import BUTTON_NOT_VALID
from core.trust.buttons import Press, SignedButton, SignedButtons
from ports.chat_settings import ChatSettings, ChatSettingsStore
from ports.clock import Clock
from ports.messenger import Messenger, MessengerError

log = logging.getLogger("vidrelay.settings")


class Outcome(enum.Enum):
    CHANGED = "changed"
    UNCHANGED = "unchanged"
    CLOSED = "closed"
    NOT_ALLOWED = "not_allowed"
    INVALID = "invalid"


@dataclass(frozen=True, slots=True)
class PressAnswer:
    outcome: Outcome
    text: str
    alert: bool = False


class ChatSettingsService:
    def __init__(
        self,
        store: ChatSettingsStore,
        messenger: Messenger,
        buttons: SignedButtons,
        access: RememberedAccess,
        clock: Clock,
        *,
        default_ask_seconds: float,
    ) -> None:
        self._store = store
        self._messenger = messenger
        self._buttons = buttons
        self._access = access
        self._clock = clock
        self._default_ask = default_ask_seconds
        self._locks = KeyedLock()

    async def for_chat(self, chat_id: int) -> ChatSettings:
        """What the chat chose, or the defaults."""
        return await self._store.chat_settings(chat_id) or ChatSettings()

    async def follow_migration(self, old_chat_id: int, new_chat_id: int) -> None:
        """The group became a supergroup: its choices are the supergroup's now."""
        if await self._store.move_chat_settings(old_chat_id, new_chat_id):
            log.info("chat settings moved to the supergroup", extra={"chat_id": new_chat_id})

    async def show(self, asker: Asker, reply_to: int) -> None:
        """Post the panel; someone who may not change the settings is told so instead.
        Raises MessengerError when the chat cannot be written to."""
        if not asker.group and asker.chat_type != "private":
            return  # a channel: nobody there sends commands to the bot
        if not await self._access.may_change(asker):
            await self._messenger.send_text(asker.chat_id, texts.SETTINGS_NOT_ADMIN, reply_to=reply_to)
            return
        shown = panel(
            await self.for_chat(asker.chat_id), group=asker.group, default_ask_seconds=self._default_ask
        )
        await self._buttons.post(self._messenger, asker.chat_id, shown.text, shown.rows, reply_to=reply_to)

    async def press(self, press: Press, asker: Asker) -> PressAnswer:
        ref = await self._buttons.verify(press)
        if ref is None or ref.action not in ACTIONS or press.message_id is None:
            return PressAnswer(Outcome.INVALID, BUTTON_NOT_VALID, alert=True)
        if not await self._access.may_change(asker):
            return PressAnswer(Outcome.NOT_ALLOWED, texts.SETTINGS_NOT_ADMIN, alert=True)
        if ref.action == DONE:
            await self._edit(asker.chat_id, press.message_id, texts.SETTINGS_CLOSED, rows=None)
            return PressAnswer(Outcome.CLOSED, texts.SETTINGS_SAVED)
        async with self._locks.hold(str(asker.chat_id)):
            before = await self.for_chat(asker.chat_id)
            after = changed(before, ref, group=asker.group)
            if after is None:
                return PressAnswer(Outcome.INVALID, BUTTON_NOT_VALID, alert=True)
            said = field_answer(after, ref.action, default_ask_seconds=self._default_ask)
            if after == before:
                return PressAnswer(Outcome.UNCHANGED, said)
            await self._store.save_chat_settings(asker.chat_id, after, self._clock.now())
            shown = panel(after, group=asker.group, default_ask_seconds=self._default_ask)
            await self._edit(asker.chat_id, press.message_id, shown.text, rows=shown.rows)
        return PressAnswer(Outcome.CHANGED, said)

    async def _edit(
        self, chat_id: int, message_id: int, text: str, *, rows: Sequence[Sequence[SignedButton]] | None
    ) -> None:
        """The panel shows what was saved; a failed edit leaves the choice saved all the same."""
        keyboard = await self._buttons.keyboard(chat_id, message_id, rows) if rows is not None else None
        try:
            await self._messenger.edit_text(chat_id, message_id, text, keyboard=keyboard)
        except MessengerError as error:
            log.warning("could not update a settings panel", exc_info=error, extra={"chat_id": chat_id})
