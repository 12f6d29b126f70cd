"""/settings: the panel a chat changes its choices with, and the choices a link is handled by.

A press counts only when its data is the bot's own signature for the very panel pressed (see
core.trust.buttons), and only from someone who may change the chat's settings: the user of a
private chat, a group's administrators. Two taps at once (two admins) are applied one after the
other, so neither change is lost.

The chat's language is chosen here too, so this service also says which words a chat reads
(`words`): its handlers answer in them.
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
from core.texts.languages import chat_language
from core.texts.words import Words
from core.trust.buttons import Press, SignedButton, SignedButtons
from ports.chat_settings import ChatSettings, ChatSettingsStore
from ports.clock import Clock
from ports.errors import StoreError
from ports.language import Languages
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
        languages: Languages,
        default_ask_seconds: float,
    ) -> None:
        self._store = store
        self._messenger = messenger
        self._buttons = buttons
        self._access = access
        self._clock = clock
        self._default_ask = default_ask_seconds
        self._languages = languages
        self._locks = KeyedLock()

    async def for_chat(self, chat_id: int) -> ChatSettings:
        """What the chat chose, or the defaults."""
        return await self._store.chat_settings(chat_id) or ChatSettings()

    async def words(self, chat_id: int, chat_type: str, app_language: str | None) -> Words:
        """The words the chat reads: its choice, else (a private chat) its user's app's language
        (`app_language`, Telegram's `language_code`), else English. A store that cannot say now
        is no reason to stay silent: the choice is then taken as automatic."""
        try:
            chosen = await self._store.chat_settings(chat_id)
        except StoreError as error:
            log.warning("the chat's language could not be read", exc_info=error, extra={"chat_id": chat_id})
            chosen = None
        return self._words_of(chosen or ChatSettings(), chat_type, app_language)

    def _words_of(self, settings: ChatSettings, chat_type: str, app_language: str | None) -> Words:
        private = chat_type == "private"
        code = chat_language(private=private, chosen=settings.language, app_language=app_language)
        return Words.of(self._languages, code)

    async def follow_migration(self, old_chat_id: int, new_chat_id: int) -> None:
        """The group became a supergroup: its choices are the supergroup's now."""
        if await self._store.move_chat_settings(old_chat_id, new_chat_id):
            log.info("chat settings moved to the supergroup", extra={"chat_id": new_chat_id})

    async def show(self, asker: Asker, reply_to: int, app_language: str | None = None) -> None:
        """Post the panel; someone who may not change the settings is told so instead.
        Raises MessengerError when the chat cannot be written to."""
        if not asker.group and asker.chat_type != "private":
            return  # a channel: nobody there sends commands to the bot
        settings = await self.for_chat(asker.chat_id)
        words = self._words_of(settings, asker.chat_type, app_language)
        if not await self._access.may_change(asker):
            text = words.say(texts.SETTINGS_NOT_ADMIN)
            await self._messenger.send_text(asker.chat_id, text, reply_to=reply_to)
            return
        shown = panel(settings, words, group=asker.group, default_ask_seconds=self._default_ask)
        await self._buttons.post(self._messenger, asker.chat_id, shown.text, shown.rows, reply_to=reply_to)

    async def press(self, press: Press, asker: Asker, app_language: str | None = None) -> PressAnswer:
        """`app_language`: the presser's Telegram app's (a private chat's automatic language)."""
        ref = await self._buttons.verify(press)
        words = await self.words(asker.chat_id, asker.chat_type, app_language)
        if ref is None or ref.action not in ACTIONS or press.message_id is None:
            return PressAnswer(Outcome.INVALID, words.say(texts.BUTTON_NOT_VALID), alert=True)
        if not await self._access.may_change(asker):
            return PressAnswer(Outcome.NOT_ALLOWED, words.say(texts.SETTINGS_NOT_ADMIN), alert=True)
        if ref.action == DONE:
            await self._edit(asker.chat_id, press.message_id, words.say(texts.SETTINGS_CLOSED), rows=None)
            return PressAnswer(Outcome.CLOSED, words.say(texts.SETTINGS_SAVED))
        async with self._locks.hold(str(asker.chat_id)):
            before = await self.for_chat(asker.chat_id)
            after = changed(before, ref, group=asker.group)
            if after is None:
                return PressAnswer(Outcome.INVALID, words.say(texts.BUTTON_NOT_VALID), alert=True)
            words = self._words_of(after, asker.chat_type, app_language)  # a new language speaks at once
            said = field_answer(
                after, ref.action, words, group=asker.group, default_ask_seconds=self._default_ask
            )
            if after == before:
                return PressAnswer(Outcome.UNCHANGED, said)
            await self._store.save_chat_settings(asker.chat_id, after, self._clock.now())
            shown = panel(after, words, group=asker.group, default_ask_seconds=self._default_ask)
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
