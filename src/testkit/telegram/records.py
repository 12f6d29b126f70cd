"""What the fake records of the bot's doings, for the tests to read: calls, videos, answers, edits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from testkit.telegram.files import FileRecord
from testkit.telegram.jpeg import Thumbnail


@dataclass(frozen=True, slots=True)
class CallRecord:
    method: str
    params: dict[str, Any]
    """As received: JSON values, or strings for form bodies (JSON fields still encoded)."""
    at: float
    """time.monotonic() when the request arrived."""
    chat_id: int | None
    files: dict[str, str]
    """Uploaded or path-read files: field name → sha256."""
    ok: bool = True
    error_code: int | None = None
    description: str | None = None
    result: Any = None
    client: str = ""
    """Who made the call, as its User-Agent says (vidrelay names its process: `vidrelay (pid N)`)."""
    ended: float = 0.0
    """time.monotonic() when the answer went out, or the client went away (a cancelled call,
    e.g. a long poll its poller stopped, is recorded too, with ok False and no error code)."""


@dataclass(frozen=True, slots=True)
class VideoRecord:
    chat_id: int
    message_id: int
    sha256: str
    size: int
    file_id: str
    file_unique_id: str
    source: str
    """"upload" (multipart bytes), "path" (local mode file://), or "file_id" (reused)."""
    reply_to: int | None
    caption: str | None
    duration: int
    width: int
    height: int
    supports_streaming: bool
    silent: bool
    reply_markup: dict[str, Any] | None
    at: float
    thumbnail: Thumbnail | None = None
    """The uploaded thumbnail, if the call carried one (see Thumbnail.valid)."""
    media_group_id: str | None = None
    """The album it came in (sendMediaGroup); None for a video of its own."""

    @property
    def uploaded(self) -> bool:
        return self.source != "file_id"


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    """One document sent (sendDocument, or a document of an album): what Telegram kept, unchanged."""

    chat_id: int
    message_id: int
    file: FileRecord
    source: str
    """"upload", "path" or "file_id", as for videos."""
    reply_to: int | None
    caption: str | None
    thumbnail: Thumbnail | None
    content_type_detection: bool
    """False when the call set disable_content_type_detection: the server was told to keep the
    upload a file whatever it holds (a video stays a document)."""
    silent: bool
    reply_markup: dict[str, Any] | None
    at: float
    media_group_id: str | None = None

    @property
    def uploaded(self) -> bool:
        return self.source != "file_id"


@dataclass(frozen=True, slots=True)
class AudioRecord:
    """One sendAudio: what Telegram kept (`file.kind` "audio", or "document" for a file it does not
    play) and what the call said of it."""

    chat_id: int
    message_id: int
    file: FileRecord
    source: str
    """"upload", "path" or "file_id", as for videos."""
    reply_to: int | None
    caption: str | None
    duration: int | None
    title: str | None
    performer: str | None
    thumbnail: Thumbnail | None
    """The thumbnail uploaded with the call, if any (see Thumbnail.valid)."""
    silent: bool
    reply_markup: dict[str, Any] | None
    at: float

    @property
    def uploaded(self) -> bool:
        return self.source != "file_id"


@dataclass(frozen=True, slots=True)
class ReactionRecord:
    chat_id: int
    message_id: int
    emojis: tuple[str, ...]
    at: float


@dataclass(frozen=True, slots=True)
class CallbackAnswer:
    callback_query_id: str
    text: str | None
    show_alert: bool
    at: float


@dataclass(frozen=True, slots=True)
class InlineAnswer:
    inline_query_id: str
    results: list[dict[str, Any]]
    cache_time: int | None
    is_personal: bool
    at: float


@dataclass(frozen=True, slots=True)
class MediaEdit:
    inline_message_id: str | None
    chat_id: int | None
    message_id: int | None
    media: dict[str, Any]
    file: FileRecord
    reply_markup: dict[str, Any] | None
    at: float


@dataclass(slots=True)
class Journal:
    """Every record, in the order the calls arrived."""

    calls: list[CallRecord] = field(default_factory=list)
    videos: list[VideoRecord] = field(default_factory=list)
    audios: list[AudioRecord] = field(default_factory=list)
    documents: list[DocumentRecord] = field(default_factory=list)
    reactions: list[ReactionRecord] = field(default_factory=list)
    callback_answers: list[CallbackAnswer] = field(default_factory=list)
    inline_answers: list[InlineAnswer] = field(default_factory=list)
    media_edits: list[MediaEdit] = field(default_factory=list)
    chat_actions: list[tuple[int, str]] = field(default_factory=list)
