"""Per-chat choices in process memory."""

from __future__ import annotations

from adapters.memory.tables import MemoryTablesUser
from ports.chat_settings import ChatSettings, ChatSettingsStore


class MemoryChatSettings(MemoryTablesUser, ChatSettingsStore):
    async def chat_settings(self, chat_id: int) -> ChatSettings | None:
        return self._tables.chat_settings.get(chat_id)

    async def save_chat_settings(self, chat_id: int, settings: ChatSettings, now: float) -> None:
        self._tables.chat_settings[chat_id] = settings

    async def move_chat_settings(self, from_chat_id: int, to_chat_id: int) -> bool:
        table = self._tables.chat_settings
        moving = table.pop(from_chat_id, None)
        if moving is None or to_chat_id in table:
            return False
        table[to_chat_id] = moving
        return True
