"""Per-chat choices in process memory."""

from __future__ import annotations

from ports.chat_settings import ChatSettings, ChatSettingsStore


class MemoryChatSettings(ChatSettingsStore):
    _chat_settings: dict[int, ChatSettings]
    """Made by the store that mixes this in, with its other tables."""

    async def chat_settings(self, chat_id: int) -> ChatSettings | None:
        return self._chat_settings.get(chat_id)

    async def save_chat_settings(self, chat_id: int, settings: ChatSettings, now: float) -> None:
        self._chat_settings[chat_id] = settings

    async def move_chat_settings(self, from_chat_id: int, to_chat_id: int) -> bool:
        moving = self._chat_settings.pop(from_chat_id, None)
        if moving is None or to_chat_id in self._chat_settings:
            return False
        self._chat_settings[to_chat_id] = moving
        return True
