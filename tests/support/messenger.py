"""An in-memory Messenger for unit tests: records what a chat would see, fails on demand.

The failure wordings are the Bot API's own, so the core's predicates meet what they meet live.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ports.messenger import (
    MAX_ALBUM_ITEMS,
    AlbumItem,
    AudioFile,
    AudioMeta,
    DocumentFile,
    DocumentMeta,
    Keyboard,
    Messenger,
    MessengerError,
    SentAudio,
    SentDocument,
    SentVideo,
    StoredAudio,
    StoredDocument,
    StoredVideo,
    VideoFile,
    VideoMeta,
)

NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are exactly "
    "the same as a current content and reply markup of the message"
)
PARSE_ERROR = 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 4'
EDIT_GONE = "Bad Request: message to edit not found"
WRONG_FILE_ID = "Bad Request: wrong file identifier/HTTP URL specified"
TOO_MANY_IN_ALBUM = "Bad Request: too many messages to send as an album"


@dataclass
class ChatMessage:
    chat_id: int
    message_id: int
    text: str | None = None
    html: bool = True
    reply_to: int | None = None
    keyboard: Keyboard | None = None
    video: str | None = None
    """file_id of a video message."""
    audio: str | None = None
    """file_id of an audio message."""
    audio_meta: AudioMeta | None = None
    document: str | None = None
    """file_id of a document message."""
    document_meta: DocumentMeta | None = None
    caption: str | None = None
    album: int | None = None
    """Which album (sendMediaGroup) the message came in, counted from 0."""
    edits: list[str] = field(default_factory=list)
    first_text: str | None = None

    @property
    def shown(self) -> list[str]:
        """Every text the message showed: the one it was sent with, then each edit."""
        return ([self.first_text] if self.first_text is not None else []) + self.edits


class FakeMessenger(Messenger):
    def __init__(self) -> None:
        self.messages: dict[tuple[int, int], ChatMessage] = {}
        self.reactions: list[tuple[int, int, str]] = []
        self.callback_answers: list[tuple[str, str | None]] = []
        self.inline_edits: list[tuple[str, str, VideoMeta]] = []
        self.inline_audio_edits: list[tuple[str, str, AudioMeta]] = []
        self.inline_texts: list[tuple[str, str]] = []
        self.calls: list[str] = []
        self.file_ids: dict[str, str] = {}
        self.albums: list[list[int]] = []
        """Each album's message ids, in the order sent."""
        self.statuses: dict[tuple[int, int], str] = {}
        """(chat, user) → getChatMember's status; everybody else is a "member"."""
        self._next_id: defaultdict[int, int] = defaultdict(lambda: 100)
        self._failures: list[tuple[str, MessengerError]] = []

    def fail_next(self, method: str, error: MessengerError) -> None:
        self._failures.append((method, error))

    def _maybe_fail(self, method: str) -> None:
        self.calls.append(method)
        for index, (name, error) in enumerate(self._failures):
            if name == method:
                del self._failures[index]
                raise error

    def _new_message(self, chat_id: int, **fields: object) -> ChatMessage:
        self._next_id[chat_id] += 1
        message = ChatMessage(chat_id, self._next_id[chat_id], **fields)  # type: ignore[arg-type]
        self.messages[(chat_id, message.message_id)] = message
        return message

    def chat(self, chat_id: int) -> list[ChatMessage]:
        return [m for (c, _), m in sorted(self.messages.items()) if c == chat_id]

    def texts(self, chat_id: int) -> list[str]:
        return [m.text for m in self.chat(chat_id) if m.text is not None]

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
        self._maybe_fail("send_text")
        return self._new_message(
            chat_id, text=text, first_text=text, html=html, reply_to=reply_to, keyboard=keyboard
        ).message_id

    async def edit_text(
        self, chat_id: int, message_id: int, text: str, *, html: bool = True, keyboard: Keyboard | None = None
    ) -> None:
        self._maybe_fail("edit_text")
        message = self.messages.get((chat_id, message_id))
        if message is None:
            raise MessengerError(EDIT_GONE, 400)
        if message.text == text and message.keyboard == keyboard:
            raise MessengerError(NOT_MODIFIED, 400)
        message.text, message.html, message.keyboard = text, html, keyboard
        message.edits.append(text)

    async def edit_keyboard(self, chat_id: int, message_id: int, keyboard: Keyboard | None) -> None:
        self._maybe_fail("edit_keyboard")
        message = self.messages.get((chat_id, message_id))
        if message is None:
            raise MessengerError(EDIT_GONE, 400)
        if message.keyboard == keyboard:
            raise MessengerError(NOT_MODIFIED, 400)
        message.keyboard = keyboard

    async def delete_message(self, chat_id: int, message_id: int) -> None:
        self._maybe_fail("delete_message")
        self.messages.pop((chat_id, message_id), None)

    async def send_video(
        self,
        chat_id: int,
        video: VideoFile | StoredVideo,
        meta: VideoMeta,
        *,
        reply_to: int | None = None,
        keyboard: Keyboard | None = None,
    ) -> SentVideo:
        self._maybe_fail("send_video")
        if isinstance(video, StoredVideo):
            if video.file_id not in self.file_ids.values():
                raise MessengerError(WRONG_FILE_ID, 400)
            file_id = video.file_id
        else:
            digest = hashlib.sha256(video.path.read_bytes()).hexdigest()
            file_id = self.file_ids.setdefault(digest, f"file-{digest[:16]}")
        message = self._new_message(chat_id, video=file_id, reply_to=reply_to, keyboard=keyboard)
        return SentVideo(message.message_id, file_id, f"unique-{file_id}")

    async def send_album(
        self, chat_id: int, videos: Sequence[AlbumItem], *, reply_to: int | None = None
    ) -> list[SentVideo]:
        self._maybe_fail("send_album")
        if not videos or len(videos) > MAX_ALBUM_ITEMS:
            raise MessengerError(TOO_MANY_IN_ALBUM, 400)
        file_ids = [self._video_file_id(video) for video, _ in videos]
        album = len(self.albums)
        sent = [
            self._new_message(chat_id, video=file_id, caption=meta.caption, reply_to=reply_to, album=album)
            for file_id, (_, meta) in zip(file_ids, videos, strict=True)
        ]
        self.albums.append([m.message_id for m in sent])
        return [SentVideo(m.message_id, f, f"unique-{f}") for m, f in zip(sent, file_ids, strict=True)]

    def _video_file_id(self, video: VideoFile | StoredVideo) -> str:
        if isinstance(video, StoredVideo):
            if video.file_id not in self.file_ids.values():
                raise MessengerError(WRONG_FILE_ID, 400)
            return video.file_id
        digest = _digest(video.path)
        return self.file_ids.setdefault(digest, f"file-{digest[:16]}")

    async def send_document(
        self,
        chat_id: int,
        document: DocumentFile | StoredDocument,
        meta: DocumentMeta,
        *,
        reply_to: int | None = None,
        keyboard: Keyboard | None = None,
    ) -> SentDocument:
        self._maybe_fail("send_document")
        if isinstance(document, StoredDocument):
            if document.file_id not in self.file_ids.values():
                raise MessengerError(WRONG_FILE_ID, 400)
            if not document.file_id.startswith("document-"):
                raise MessengerError("Bad Request: can't use file of type Video as Document", 400)
            file_id = document.file_id
        else:
            digest = _digest(document.path)
            file_id = self.file_ids.setdefault(f"document:{digest}", f"document-{digest[:16]}")
        message = self._new_message(
            chat_id,
            document=file_id,
            document_meta=meta,
            caption=meta.caption,
            reply_to=reply_to,
            keyboard=keyboard,
        )
        return SentDocument(message.message_id, file_id, f"unique-{file_id}")

    async def react(self, chat_id: int, message_id: int, emoji: str) -> None:
        self._maybe_fail("react")
        self.reactions.append((chat_id, message_id, emoji))

    async def answer_callback(self, callback_id: str, text: str | None = None) -> None:
        self._maybe_fail("answer_callback")
        self.callback_answers.append((callback_id, text))

    async def member_status(self, chat_id: int, user_id: int) -> str:
        self._maybe_fail("member_status")
        return self.statuses.get((chat_id, user_id), "member")

    async def edit_inline_video(
        self, inline_message_id: str, file_id: str, meta: VideoMeta, *, keyboard: Keyboard | None = None
    ) -> None:
        self._maybe_fail("edit_inline_video")
        self.inline_edits.append((inline_message_id, file_id, meta))

    async def send_audio(
        self,
        chat_id: int,
        audio: AudioFile | StoredAudio,
        meta: AudioMeta,
        *,
        reply_to: int | None = None,
        keyboard: Keyboard | None = None,
    ) -> SentAudio:
        self._maybe_fail("send_audio")
        if isinstance(audio, StoredAudio):
            if audio.file_id not in self.file_ids.values():
                raise MessengerError(WRONG_FILE_ID, 400)
            file_id = audio.file_id
        else:
            digest = hashlib.sha256(audio.path.read_bytes()).hexdigest()
            file_id = self.file_ids.setdefault(f"audio:{digest}", f"audio-{digest[:16]}")
        message = self._new_message(
            chat_id, audio=file_id, audio_meta=meta, reply_to=reply_to, keyboard=keyboard
        )
        return SentAudio(message.message_id, file_id, f"unique-{file_id}")

    async def edit_inline_audio(
        self, inline_message_id: str, file_id: str, meta: AudioMeta, *, keyboard: Keyboard | None = None
    ) -> None:
        self._maybe_fail("edit_inline_audio")
        self.inline_audio_edits.append((inline_message_id, file_id, meta))

    async def edit_inline_text(
        self, inline_message_id: str, text: str, *, keyboard: Keyboard | None = None
    ) -> None:
        self._maybe_fail("edit_inline_text")
        self.inline_texts.append((inline_message_id, text))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
