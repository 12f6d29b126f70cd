"""A /settings service over the memory store and a fake messenger, and who asks it."""

from __future__ import annotations

from secrets import token_bytes

from adapters.memory.store import MemoryStore
from core.chat_settings.remembered_access import RememberedAccess
from core.chat_settings.service import ChatSettingsService, PressAnswer
from core.chat_settings.who_may_change import Asker
from core.trust.buttons import Press, SignedButtons
from core.trust.keys import InstallKeys
from ports.messenger import Button
from tests.support.clock import VirtualClock
from tests.support.languages import languages
from tests.support.messenger import FakeMessenger

GROUP = -4001
OTHER_GROUP = -4002
ADMIN = 11
MEMBER = 12
DEFAULT_ASK = 1200.0


class Admins:
    """Who the group says is an administrator; counts how often it was asked."""

    def __init__(self, *admins: int) -> None:
        self.admins = set(admins)
        self.asked = 0

    async def may_change(
        self, chat_id: int, chat_type: str, user_id: int, *, sender_chat_id: int | None = None
    ) -> bool:
        self.asked += 1
        if chat_type == "private":
            return chat_id == user_id
        return sender_chat_id == chat_id or user_id in self.admins


class Rig:
    def __init__(self, clock: VirtualClock) -> None:
        self.store = MemoryStore()
        self.messenger = FakeMessenger()
        self.buttons = SignedButtons(InstallKeys(self.store, token_bytes))
        self.admins = Admins(ADMIN)
        self.service = ChatSettingsService(
            self.store,
            self.messenger,
            self.buttons,
            RememberedAccess(self.admins, clock),
            clock,
            languages=languages(),
            default_ask_seconds=DEFAULT_ASK,
        )

    async def open_panel(self, asker: Asker, app_language: str | None = None) -> int:
        await self.service.show(asker, reply_to=1, app_language=app_language)
        return self.messenger.chat(asker.chat_id)[-1].message_id

    def panel_buttons(self, chat_id: int) -> list[Button]:
        keyboard = self.messenger.chat(chat_id)[-1].keyboard or []
        return [button for row in keyboard for button in row]

    def button(self, chat_id: int, text: str) -> Button:
        return next(b for b in self.panel_buttons(chat_id) if b.text == text)

    async def tap(
        self, asker: Asker, message_id: int, text: str, app_language: str | None = None
    ) -> PressAnswer:
        data = self.button(asker.chat_id, text).callback_data or ""
        press = Press(data, asker.chat_id, message_id, asker.user_id)
        return await self.service.press(press, asker, app_language=app_language)


def in_group(user_id: int, chat_id: int = GROUP) -> Asker:
    return Asker(chat_id, "supergroup", user_id)


def in_private(user_id: int) -> Asker:
    return Asker(user_id, "private", user_id)
