"""Per-chat choices, kept in the store: the quality a chat's videos come in, the sound only by
default, the language the bot speaks there, videos sent as files, and (groups) whether long
videos ask first and from what length."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class ChatSettings:
    max_height: int | None = None
    """The tallest picture the chat wants (1080, 720, 480); None: the best that fits."""
    audio_only: bool = False
    """A link becomes its sound (sendAudio) unless the user asks for the video."""
    ask_long_videos: bool = True
    """Groups: a long video asks "download it anyway?" first."""
    ask_longer_than_seconds: int | None = None
    """Groups: from what length a video is long; None: the operator's default."""
    language: str | None = None
    """The catalog the chat reads ("es"); None: automatic (a private chat's Telegram app's
    language, English in a group)."""
    as_file: bool = False
    """A video comes as a document: the bytes as downloaded, no player, nothing re-encoded."""


class ChatSettingsStore(Protocol):
    async def chat_settings(self, chat_id: int) -> ChatSettings | None:
        """What the chat chose; None when it never chose anything."""
        ...

    async def save_chat_settings(self, chat_id: int, settings: ChatSettings, now: float) -> None:
        """Insert or replace the chat's choices."""
        ...

    async def move_chat_settings(self, from_chat_id: int, to_chat_id: int) -> bool:
        """A group became a supergroup: its choices go with it, unless the new chat already has
        its own (then the old ones are dropped all the same). True when they moved."""
        ...
