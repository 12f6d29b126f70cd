"""Everything the fake Telegram knows, shared by its HTTP methods and the test-side driver."""

from __future__ import annotations

import asyncio
from typing import Any, NamedTuple

from testkit.telegram.changes import Changes
from testkit.telegram.faults import Faults
from testkit.telegram.files import FileRegistry
from testkit.telegram.flood import FloodGate, FloodLimits
from testkit.telegram.messages import InlineMessage, MessageStore
from testkit.telegram.outages import Outage
from testkit.telegram.people import Chat, User
from testkit.telegram.records import Journal
from testkit.telegram.update_queue import UpdateQueue


class MenuKey(NamedTuple):
    """A command menu's place: its scope's type, the scope's chat (chat scopes), its language."""

    scope: str
    chat_id: int | None
    language: str


class TelegramState:
    def __init__(
        self,
        bot: User,
        *,
        reads_all_group_messages: bool = False,
        local_mode: bool,
        upload_limit: int,
        changes: Changes,
        stopping: asyncio.Event,
        flood_limits: FloodLimits | None = None,
    ) -> None:
        self.bot = bot
        self.reads_all_group_messages = reads_all_group_messages
        """getMe's can_read_all_group_messages: False while the bot's privacy mode is on."""
        self.local_mode = local_mode
        self.upload_limit = upload_limit
        self.changes = changes
        self.stopping = stopping
        """Set when the server stops, so that long polls end at once."""
        self.flood_limits = flood_limits
        self.clear()

    def clear(self) -> None:
        """Forget every chat, message, file, update, fault, record and flood count."""
        self.chats: dict[int, Chat] = {}
        self.blocked: set[int] = set()
        self.migrated: dict[int, int] = {}
        """Old group id → the supergroup it became: calls to the old id are refused with the new one."""
        self.messages = MessageStore()
        self.files = FileRegistry()
        self.updates = UpdateQueue(self.changes)
        self.members: dict[tuple[int, int], tuple[User, str]] = {}
        """(chat, user) → the user and their status there; anybody else is a plain member."""
        self.callback_queries: dict[str, User] = {}
        """Sent to the bot, not answered yet: a query is answered once."""
        self.inline_queries: dict[str, User] = {}
        self.inline_messages: dict[str, InlineMessage] = {}
        self.faults = Faults()
        self.outage: Outage | None = None
        self.journal = Journal()
        self.webhook: dict[str, Any] | None = None
        self.webhook_error: tuple[int, str] | None = None
        """(unix time, message) of Telegram's last failure to deliver to the webhook."""
        self.menus: dict[MenuKey, list[dict[str, str]]] = {}
        self.flood = FloodGate(self.flood_limits) if self.flood_limits is not None else None

    def add_chat(self, chat: Chat) -> Chat:
        self.chats[chat.id] = chat
        return chat
