"""Talking to chats (the Telegram Bot API, or our fake of it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class MessengerError(Exception):
    """The chat service refused a call or could not be reached (`code` None); the core classifies it."""

    def __init__(
        self,
        description: str,
        code: int | None = None,
        retry_after: float | None = None,
        *,
        migrate_to_chat_id: int | None = None,
    ):
        super().__init__(description)
        self.description = description
        self.code = code
        self.retry_after = retry_after
        # Set when a group became a supergroup: the same call to this new chat id would work.
        self.migrate_to_chat_id = migrate_to_chat_id


@dataclass(frozen=True, slots=True)
class Button:
    text: str
    callback_data: str | None = None
    url: str | None = None


Keyboard = Sequence[Sequence[Button]]


@dataclass(frozen=True, slots=True)
class VideoFile:
    """Bytes on our disk: uploaded (cloud API) or passed by path (local Bot API server)."""

    path: Path


@dataclass(frozen=True, slots=True)
class StoredVideo:
    """A video Telegram already has."""

    file_id: str


@dataclass(frozen=True, slots=True)
class VideoMeta:
    duration: int | None = None
    width: int | None = None
    height: int | None = None
    caption: str | None = None
    thumbnail: Path | None = None
    """A JPEG of at most 320 px a side, uploaded with the video (Telegram reuses none: not by file_id)."""


@dataclass(frozen=True, slots=True)
class SentVideo:
    message_id: int
    file_id: str
    file_unique_id: str


AlbumItem = tuple[VideoFile | StoredVideo, VideoMeta]
"""One video of an album and what it shows (its caption, duration, size, thumbnail)."""
MAX_ALBUM_ITEMS = 10
"""Telegram's largest album."""


@dataclass(frozen=True, slots=True)
class DocumentFile:
    """Bytes on our disk sent as a file: Telegram keeps them as they are, no player, no re-encoding."""

    path: Path


@dataclass(frozen=True, slots=True)
class StoredDocument:
    """A document Telegram already has (a video's file_id is not one)."""

    file_id: str


@dataclass(frozen=True, slots=True)
class DocumentMeta:
    caption: str | None = None
    thumbnail: Path | None = None
    """A JPEG of at most 320 px a side, uploaded with the document (never by file_id)."""
    file_name: str | None = None
    """What the file is called in the chat (an upload's; a local Bot API server's path keeps its own)."""


@dataclass(frozen=True, slots=True)
class SentDocument:
    message_id: int
    file_id: str
    file_unique_id: str


@dataclass(frozen=True, slots=True)
class AudioFile:
    """A sound file on our disk (M4A or MP3: Telegram plays nothing else as audio)."""

    path: Path


@dataclass(frozen=True, slots=True)
class StoredAudio:
    """An audio Telegram already has."""

    file_id: str


@dataclass(frozen=True, slots=True)
class AudioMeta:
    duration: int | None = None
    title: str | None = None
    performer: str | None = None
    caption: str | None = None
    thumbnail: Path | None = None
    """A JPEG of at most 320 px a side, uploaded with the audio (never by file_id)."""


@dataclass(frozen=True, slots=True)
class SentAudio:
    message_id: int
    file_id: str
    file_unique_id: str


class Messenger(Protocol):
    """Every method raises MessengerError when the call did not go through, and nothing else."""

    async def send_text(
        self,
        chat_id: int,
        text: str,
        *,
        reply_to: int | None = None,
        html: bool = True,
        silent: bool = True,
        keyboard: Keyboard | None = None,
    ) -> int:
        """Send a message (link previews off); its message id."""
        ...

    async def edit_text(
        self,
        chat_id: int,
        message_id: int,
        text: str,
        *,
        html: bool = True,
        keyboard: Keyboard | None = None,
    ) -> None: ...

    async def edit_keyboard(self, chat_id: int, message_id: int, keyboard: Keyboard | None) -> None:
        """Replace the buttons under a message, leaving its text as it is."""
        ...

    async def delete_message(self, chat_id: int, message_id: int) -> None: ...

    async def send_video(
        self,
        chat_id: int,
        video: VideoFile | StoredVideo,
        meta: VideoMeta,
        *,
        reply_to: int | None = None,
        keyboard: Keyboard | None = None,
    ) -> SentVideo: ...

    async def send_album(
        self, chat_id: int, videos: Sequence[AlbumItem], *, reply_to: int | None = None
    ) -> list[SentVideo]:
        """2 to MAX_ALBUM_ITEMS videos as one album: a message each, in order, with its own caption
        (an album takes no keyboard). What Telegram kept of each, in the same order."""
        ...

    async def send_document(
        self,
        chat_id: int,
        document: DocumentFile | StoredDocument,
        meta: DocumentMeta,
        *,
        reply_to: int | None = None,
        keyboard: Keyboard | None = None,
    ) -> SentDocument:
        """The file as a file: Telegram is told to keep an upload a document whatever it holds."""
        ...

    async def react(self, chat_id: int, message_id: int, emoji: str) -> None: ...

    async def answer_callback(self, callback_id: str, text: str | None = None) -> None: ...

    async def member_status(self, chat_id: int, user_id: int) -> str:
        """What the chat says `user_id` is there: "creator", "administrator", "member",
        "restricted", "left" or "kicked"."""
        ...

    async def edit_inline_video(
        self,
        inline_message_id: str,
        file_id: str,
        meta: VideoMeta,
        *,
        keyboard: Keyboard | None = None,
    ) -> None: ...

    async def send_audio(
        self,
        chat_id: int,
        audio: AudioFile | StoredAudio,
        meta: AudioMeta,
        *,
        reply_to: int | None = None,
        keyboard: Keyboard | None = None,
    ) -> SentAudio: ...

    async def edit_inline_audio(
        self,
        inline_message_id: str,
        file_id: str,
        meta: AudioMeta,
        *,
        keyboard: Keyboard | None = None,
    ) -> None:
        """Swap an inline message's content for the audio Telegram has as `file_id`."""
        ...

    async def edit_inline_text(
        self, inline_message_id: str, text: str, *, keyboard: Keyboard | None = None
    ) -> None:
        """Replace the text of a message a user sent through inline mode (HTML, no link preview)."""
        ...
