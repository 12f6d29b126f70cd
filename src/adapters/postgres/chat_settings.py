"""Per-chat choices on PostgreSQL: one row per chat that chose anything, shared by every process."""

from __future__ import annotations

from adapters.postgres.database import PostgresAccess
from ports.chat_settings import ChatSettings, ChatSettingsStore

_READ = """
    SELECT max_height, audio_only, ask_long_videos, ask_longer_than_seconds, language, as_file
    FROM chat_settings WHERE chat_id = $1
"""
_SAVE = """
    INSERT INTO chat_settings
        (chat_id, max_height, audio_only, ask_long_videos, ask_longer_than_seconds, language, as_file,
        updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
    ON CONFLICT (chat_id) DO UPDATE SET (max_height, audio_only, ask_long_videos,
        ask_longer_than_seconds, language, as_file, updated_at) = (EXCLUDED.max_height,
        EXCLUDED.audio_only, EXCLUDED.ask_long_videos, EXCLUDED.ask_longer_than_seconds,
        EXCLUDED.language, EXCLUDED.as_file, EXCLUDED.updated_at)
"""
# The new chat keeps its own choices if it has any; the old chat's row goes either way.
_MOVE = """
    WITH old AS (DELETE FROM chat_settings WHERE chat_id = $1 RETURNING *)
    INSERT INTO chat_settings
        (chat_id, max_height, audio_only, ask_long_videos, ask_longer_than_seconds, language, as_file,
        updated_at)
    SELECT $2, max_height, audio_only, ask_long_videos, ask_longer_than_seconds, language, as_file,
        updated_at
    FROM old
    ON CONFLICT (chat_id) DO NOTHING
"""


class PostgresChatSettings(PostgresAccess, ChatSettingsStore):
    async def chat_settings(self, chat_id: int) -> ChatSettings | None:
        row = await self._db.fetchrow(_READ, chat_id)
        if row is None:
            return None
        max_height, audio_only, ask_long_videos, ask_longer_than, language, as_file = row
        return ChatSettings(max_height, audio_only, ask_long_videos, ask_longer_than, language, as_file)

    async def save_chat_settings(self, chat_id: int, settings: ChatSettings, now: float) -> None:
        s = settings
        values = (
            s.max_height,
            s.audio_only,
            s.ask_long_videos,
            s.ask_longer_than_seconds,
            s.language,
            s.as_file,
        )
        await self._db.execute(_SAVE, chat_id, *values, now)

    async def move_chat_settings(self, from_chat_id: int, to_chat_id: int) -> bool:
        return await self._db.execute(_MOVE, from_chat_id, to_chat_id) == 1
