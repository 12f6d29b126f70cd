"""Per-chat choices on SQLite: one row per chat that chose anything."""

from __future__ import annotations

from typing import Any

from adapters.sqlite.connection import Db, changes, fetch_one
from adapters.sqlite.kinds import ALONE
from adapters.sqlite.writer import GroupCommitWriter
from ports.chat_settings import ChatSettings, ChatSettingsStore

_READ = """
    SELECT max_height, audio_only, ask_long_videos, ask_longer_than_seconds, language, as_file
    FROM chat_settings WHERE chat_id = ?
"""
_SAVE = """
    INSERT INTO chat_settings
        (chat_id, max_height, audio_only, ask_long_videos, ask_longer_than_seconds, language, as_file,
        updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (chat_id) DO UPDATE SET
        max_height = excluded.max_height,
        audio_only = excluded.audio_only,
        ask_long_videos = excluded.ask_long_videos,
        ask_longer_than_seconds = excluded.ask_longer_than_seconds,
        language = excluded.language,
        as_file = excluded.as_file,
        updated_at = excluded.updated_at
"""
# The new chat keeps its own choices if it has any; the old chat's row goes either way.
_MOVE = "UPDATE OR IGNORE chat_settings SET chat_id = ? WHERE chat_id = ?"
_DROP = "DELETE FROM chat_settings WHERE chat_id = ?"


class SqliteChatSettings(ChatSettingsStore):
    _writer: GroupCommitWriter
    """The store's one writer: every statement of every port goes through it."""

    async def chat_settings(self, chat_id: int) -> ChatSettings | None:
        row = await self._writer.submit(ALONE, lambda db: fetch_one(db, _READ, (chat_id,)), writes=False)
        return _settings_from_row(row) if row is not None else None

    async def save_chat_settings(self, chat_id: int, settings: ChatSettings, now: float) -> None:
        values = (
            chat_id,
            settings.max_height,
            int(settings.audio_only),
            int(settings.ask_long_videos),
            settings.ask_longer_than_seconds,
            settings.language,
            int(settings.as_file),
            now,
        )
        await self._writer.submit(ALONE, lambda db: changes(db, _SAVE, values))

    async def move_chat_settings(self, from_chat_id: int, to_chat_id: int) -> bool:
        async def work(db: Db) -> bool:
            moved = await changes(db, _MOVE, (to_chat_id, from_chat_id)) > 0
            await db.execute(_DROP, (from_chat_id,))
            return moved

        moved: bool = await self._writer.submit(ALONE, work)
        return moved


def _settings_from_row(row: tuple[Any, ...]) -> ChatSettings:
    max_height, audio_only, ask_long_videos, ask_longer_than, language, as_file = row
    return ChatSettings(
        max_height=int(max_height) if max_height is not None else None,
        audio_only=bool(audio_only),
        ask_long_videos=bool(ask_long_videos),
        ask_longer_than_seconds=int(ask_longer_than) if ask_longer_than is not None else None,
        language=str(language) if language is not None else None,
        as_file=bool(as_file),
    )
