"""The Messenger port over aiogram: HTML, no link previews, silent replies, sendVideo, albums
(sendMediaGroup), sendDocument, sendAudio.

Every aiogram failure leaves as a MessengerError (adapters.telegram.errors) carrying Telegram's
own description, its error_code (None for a network failure) and retry_after, for the core to
classify.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from aiogram import Bot
from aiogram.enums import ChatMemberStatus
from aiogram.types import (
    FSInputFile,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaAudio,
    InputMediaVideo,
    LinkPreviewOptions,
    Message,
    ReactionTypeEmoji,
    ReplyParameters,
)

from adapters.telegram.errors import translated
from ports.messenger import (
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

HTML = "HTML"
VIDEO_REQUEST_TIMEOUT_SECONDS = 600
"""An upload of 50 MB over a slow link takes longer than the session's default minute."""

_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


def inline_keyboard(keyboard: Keyboard | None) -> InlineKeyboardMarkup | None:
    if keyboard is None:
        return None
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [InlineKeyboardButton(text=b.text, callback_data=b.callback_data, url=b.url) for b in row]
            for row in keyboard
        ]
    )


def _reply(message_id: int | None) -> ReplyParameters | None:
    # A user who deleted their link (or a group that migrated) still gets the video, unthreaded.
    if message_id is None:
        return None
    return ReplyParameters(message_id=message_id, allow_sending_without_reply=True)


class TelegramMessenger(Messenger):
    def __init__(self, bot: Bot, local_mode: bool) -> None:
        self._bot = bot
        self._local_mode = local_mode

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
        async with translated():
            message = await self._bot.send_message(
                chat_id,
                text,
                parse_mode=HTML if html else None,
                link_preview_options=_NO_PREVIEW,
                disable_notification=silent,
                reply_parameters=_reply(reply_to),
                reply_markup=inline_keyboard(keyboard),
            )
        return message.message_id

    async def edit_text(
        self,
        chat_id: int,
        message_id: int,
        text: str,
        *,
        html: bool = True,
        keyboard: Keyboard | None = None,
    ) -> None:
        async with translated():
            await self._bot.edit_message_text(
                text=text,
                chat_id=chat_id,
                message_id=message_id,
                parse_mode=HTML if html else None,
                link_preview_options=_NO_PREVIEW,
                reply_markup=inline_keyboard(keyboard),
            )

    async def edit_keyboard(self, chat_id: int, message_id: int, keyboard: Keyboard | None) -> None:
        async with translated():
            await self._bot.edit_message_reply_markup(
                chat_id=chat_id, message_id=message_id, reply_markup=inline_keyboard(keyboard)
            )

    async def delete_message(self, chat_id: int, message_id: int) -> None:
        async with translated():
            await self._bot.delete_message(chat_id, message_id)

    async def send_video(
        self,
        chat_id: int,
        video: VideoFile | StoredVideo,
        meta: VideoMeta,
        *,
        reply_to: int | None = None,
        keyboard: Keyboard | None = None,
    ) -> SentVideo:
        async with translated():
            message = await self._bot.send_video(
                chat_id,
                self._video_input(video),
                duration=meta.duration,
                width=meta.width,
                height=meta.height,
                caption=meta.caption,
                thumbnail=_thumbnail(meta),
                parse_mode=HTML,
                supports_streaming=True,
                disable_notification=True,
                reply_parameters=_reply(reply_to),
                reply_markup=inline_keyboard(keyboard),
                request_timeout=VIDEO_REQUEST_TIMEOUT_SECONDS,
            )
        return _sent_video(message)

    async def send_album(
        self, chat_id: int, videos: Sequence[AlbumItem], *, reply_to: int | None = None
    ) -> list[SentVideo]:
        media = [self._album_video(video, meta) for video, meta in videos]
        uploads = sum(isinstance(video, VideoFile) for video, _ in videos)
        async with translated():
            messages = await self._bot.send_media_group(
                chat_id,
                media,  # type: ignore[arg-type]  # aiogram's list is invariant over its media kinds
                disable_notification=True,
                reply_parameters=_reply(reply_to),
                # Each upload may take as long as one video's.
                request_timeout=VIDEO_REQUEST_TIMEOUT_SECONDS * max(uploads, 1),
            )
        return [_sent_video(message) for message in messages]

    def _album_video(self, video: VideoFile | StoredVideo, meta: VideoMeta) -> InputMediaVideo:
        return InputMediaVideo(
            media=self._video_input(video),
            caption=meta.caption,
            parse_mode=HTML,
            duration=meta.duration,
            width=meta.width,
            height=meta.height,
            supports_streaming=True,
            thumbnail=_thumbnail(meta),
        )

    async def send_document(
        self,
        chat_id: int,
        document: DocumentFile | StoredDocument,
        meta: DocumentMeta,
        *,
        reply_to: int | None = None,
        keyboard: Keyboard | None = None,
    ) -> SentDocument:
        file = (
            document.file_id
            if isinstance(document, StoredDocument)
            else self._file_input(document.path, meta.file_name)
        )
        async with translated():
            message = await self._bot.send_document(
                chat_id,
                file,
                caption=meta.caption,
                parse_mode=HTML,
                thumbnail=FSInputFile(meta.thumbnail) if meta.thumbnail is not None else None,
                # Without it Telegram's servers may file an MP4 as a video: the user asked for the file.
                disable_content_type_detection=True,
                disable_notification=True,
                reply_parameters=_reply(reply_to),
                reply_markup=inline_keyboard(keyboard),
                request_timeout=VIDEO_REQUEST_TIMEOUT_SECONDS,
            )
        if message.document is None:
            raise MessengerError("Bad Request: the sent message carries no document", 400)
        return SentDocument(message.message_id, message.document.file_id, message.document.file_unique_id)

    def _video_input(self, video: VideoFile | StoredVideo) -> FSInputFile | str:
        return video.file_id if isinstance(video, StoredVideo) else self._file_input(video.path)

    def _file_input(self, path: Path, file_name: str | None = None) -> FSInputFile | str:
        if self._local_mode:
            # The local Bot API server reads the file itself: pass a file:// URI, not the bytes.
            return path.resolve().as_uri()
        return FSInputFile(path, filename=file_name)

    async def react(self, chat_id: int, message_id: int, emoji: str) -> None:
        async with translated():
            await self._bot.set_message_reaction(chat_id, message_id, [ReactionTypeEmoji(emoji=emoji)])

    async def answer_callback(self, callback_id: str, text: str | None = None) -> None:
        async with translated():
            await self._bot.answer_callback_query(callback_id, text=text)

    async def member_status(self, chat_id: int, user_id: int) -> str:
        async with translated():
            member = await self._bot.get_chat_member(chat_id, user_id)
        return ChatMemberStatus(member.status).value

    async def edit_inline_video(
        self,
        inline_message_id: str,
        file_id: str,
        meta: VideoMeta,
        *,
        keyboard: Keyboard | None = None,
    ) -> None:
        media = InputMediaVideo(
            media=file_id,
            caption=meta.caption,
            parse_mode=HTML,
            duration=meta.duration,
            width=meta.width,
            height=meta.height,
            supports_streaming=True,
        )
        async with translated():
            await self._bot.edit_message_media(
                media, inline_message_id=inline_message_id, reply_markup=inline_keyboard(keyboard)
            )

    async def send_audio(
        self,
        chat_id: int,
        audio: AudioFile | StoredAudio,
        meta: AudioMeta,
        *,
        reply_to: int | None = None,
        keyboard: Keyboard | None = None,
    ) -> SentAudio:
        sound = audio.file_id if isinstance(audio, StoredAudio) else self._file_input(audio.path)
        async with translated():
            message = await self._bot.send_audio(
                chat_id,
                sound,
                caption=meta.caption,
                parse_mode=HTML,
                duration=meta.duration,
                performer=meta.performer,
                title=meta.title,
                # A thumbnail is only ever a new upload, in local mode too.
                thumbnail=FSInputFile(meta.thumbnail) if meta.thumbnail is not None else None,
                disable_notification=True,
                reply_parameters=_reply(reply_to),
                reply_markup=inline_keyboard(keyboard),
                request_timeout=VIDEO_REQUEST_TIMEOUT_SECONDS,
            )
        return _sent_audio(message)

    async def edit_inline_audio(
        self,
        inline_message_id: str,
        file_id: str,
        meta: AudioMeta,
        *,
        keyboard: Keyboard | None = None,
    ) -> None:
        media = InputMediaAudio(
            media=file_id,
            caption=meta.caption,
            parse_mode=HTML,
            duration=meta.duration,
            performer=meta.performer,
            title=meta.title,
        )
        async with translated():
            await self._bot.edit_message_media(
                media, inline_message_id=inline_message_id, reply_markup=inline_keyboard(keyboard)
            )

    async def edit_inline_text(
        self, inline_message_id: str, text: str, *, keyboard: Keyboard | None = None
    ) -> None:
        async with translated():
            await self._bot.edit_message_text(
                text=text,
                inline_message_id=inline_message_id,
                parse_mode=HTML,
                link_preview_options=_NO_PREVIEW,
                reply_markup=inline_keyboard(keyboard),
            )


def _sent_audio(message: Message) -> SentAudio:
    """Telegram files a sound it does not play (not MP3 or M4A) as a document: take what it kept."""
    media = message.audio or message.document or message.voice
    if media is None:
        raise MessengerError("Bad Request: the sent message carries no audio file", 400)
    return SentAudio(message.message_id, media.file_id, media.file_unique_id)


def _thumbnail(meta: VideoMeta) -> FSInputFile | None:
    # Always uploaded, in local mode too: the Bot API takes a thumbnail only as a new upload.
    return FSInputFile(meta.thumbnail) if meta.thumbnail is not None else None


def _sent_video(message: Message) -> SentVideo:
    """Telegram may file a video it cannot stream as an animation or a document: take what it kept."""
    media = message.video or message.animation or message.document
    if media is None:
        # Sending again would post the same file-less message again: not worth a retry.
        raise MessengerError("Bad Request: the sent message carries no video file", 400)
    return SentVideo(message.message_id, media.file_id, media.file_unique_id)
