"""The Messenger a job's attempt talks through: every call first asks the attempt's fence.

A call goes out only while the attempt surely holds its job's lease, with a margin
(core.jobs.fence); one that does not stops the attempt (AttemptStopped) instead of reaching the
chat. A send holds the lease for its whole budget first: an upload for `upload_seconds` (the
adapter's own deadline for one; an album, for each of its uploads), a video Telegram has already
(by file_id) for `call_seconds`.
Calls that are not made for a job (the handlers', the 💥 report after the row is buried) use the
plain Messenger.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.jobs.fence import Fence
from ports.messenger import (
    AlbumItem,
    AudioFile,
    AudioMeta,
    DocumentFile,
    DocumentMeta,
    Keyboard,
    Messenger,
    SentAudio,
    SentDocument,
    SentVideo,
    StoredAudio,
    StoredDocument,
    StoredVideo,
    VideoFile,
    VideoMeta,
)


@dataclass(frozen=True, slots=True)
class SendBudgets:
    upload_seconds: float
    """The longest an upload may take (the Telegram adapter's deadline for one)."""
    call_seconds: float
    """The longest any other call may take."""


class FencedMessengers:
    """One fenced Messenger per attempt, over the process's Messenger."""

    def __init__(self, messenger: Messenger, budgets: SendBudgets) -> None:
        self._messenger = messenger
        self._budgets = budgets

    def for_attempt(self, fence: Fence) -> Messenger:
        return FencedMessenger(self._messenger, fence, self._budgets)


class FencedMessenger(Messenger):
    def __init__(self, messenger: Messenger, fence: Fence, budgets: SendBudgets) -> None:
        self._messenger = messenger
        self._fence = fence
        self._budgets = budgets

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
        self._fence.check()
        return await self._messenger.send_text(
            chat_id, text, reply_to=reply_to, html=html, silent=silent, keyboard=keyboard
        )

    async def edit_text(
        self, chat_id: int, message_id: int, text: str, *, html: bool = True, keyboard: Keyboard | None = None
    ) -> None:
        self._fence.check()
        await self._messenger.edit_text(chat_id, message_id, text, html=html, keyboard=keyboard)

    async def edit_keyboard(self, chat_id: int, message_id: int, keyboard: Keyboard | None) -> None:
        self._fence.check()
        await self._messenger.edit_keyboard(chat_id, message_id, keyboard)

    async def delete_message(self, chat_id: int, message_id: int) -> None:
        self._fence.check()
        await self._messenger.delete_message(chat_id, message_id)

    async def send_video(
        self,
        chat_id: int,
        video: VideoFile | StoredVideo,
        meta: VideoMeta,
        *,
        reply_to: int | None = None,
        keyboard: Keyboard | None = None,
    ) -> SentVideo:
        async with self._fence.reserved(self._budget(isinstance(video, VideoFile))):
            return await self._messenger.send_video(
                chat_id, video, meta, reply_to=reply_to, keyboard=keyboard
            )

    async def send_album(
        self, chat_id: int, videos: Sequence[AlbumItem], *, reply_to: int | None = None
    ) -> list[SentVideo]:
        uploads = sum(isinstance(video, VideoFile) for video, _ in videos)
        budget = uploads * self._budgets.upload_seconds if uploads else self._budgets.call_seconds
        async with self._fence.reserved(budget):
            return await self._messenger.send_album(chat_id, videos, reply_to=reply_to)

    async def send_document(
        self,
        chat_id: int,
        document: DocumentFile | StoredDocument,
        meta: DocumentMeta,
        *,
        reply_to: int | None = None,
        keyboard: Keyboard | None = None,
    ) -> SentDocument:
        async with self._fence.reserved(self._budget(isinstance(document, DocumentFile))):
            return await self._messenger.send_document(
                chat_id, document, meta, reply_to=reply_to, keyboard=keyboard
            )

    async def react(self, chat_id: int, message_id: int, emoji: str) -> None:
        self._fence.check()
        await self._messenger.react(chat_id, message_id, emoji)

    async def answer_callback(self, callback_id: str, text: str | None = None) -> None:
        self._fence.check()
        await self._messenger.answer_callback(callback_id, text)

    async def member_status(self, chat_id: int, user_id: int) -> str:
        self._fence.check()
        return await self._messenger.member_status(chat_id, user_id)

    async def edit_inline_video(
        self, inline_message_id: str, file_id: str, meta: VideoMeta, *, keyboard: Keyboard | None = None
    ) -> None:
        self._fence.check()
        await self._messenger.edit_inline_video(inline_message_id, file_id, meta, keyboard=keyboard)

    async def send_audio(
        self,
        chat_id: int,
        audio: AudioFile | StoredAudio,
        meta: AudioMeta,
        *,
        reply_to: int | None = None,
        keyboard: Keyboard | None = None,
    ) -> SentAudio:
        async with self._fence.reserved(self._budget(isinstance(audio, AudioFile))):
            return await self._messenger.send_audio(
                chat_id, audio, meta, reply_to=reply_to, keyboard=keyboard
            )

    async def edit_inline_audio(
        self, inline_message_id: str, file_id: str, meta: AudioMeta, *, keyboard: Keyboard | None = None
    ) -> None:
        self._fence.check()
        await self._messenger.edit_inline_audio(inline_message_id, file_id, meta, keyboard=keyboard)

    async def edit_inline_text(
        self, inline_message_id: str, text: str, *, keyboard: Keyboard | None = None
    ) -> None:
        self._fence.check()
        await self._messenger.edit_inline_text(inline_message_id, text, keyboard=keyboard)

    def _budget(self, upload: bool) -> float:
        return self._budgets.upload_seconds if upload else self._budgets.call_seconds
