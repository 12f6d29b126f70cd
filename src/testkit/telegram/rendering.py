"""The fake's messages and files as the Bot API's Message, Video, Audio and Document objects."""

from __future__ import annotations

import mimetypes
from typing import Any

from testkit.telegram.files import FileRecord
from testkit.telegram.messages import StoredMessage
from testkit.telegram.state import TelegramState


def message_json(state: TelegramState, message: StoredMessage, *, nested: bool = False) -> dict[str, Any]:
    """`nested`: the replied-to message inside another, which carries no reply of its own."""
    data: dict[str, Any] = {
        "message_id": message.message_id,
        "from": message.sender.to_api(),
        "chat": state.chats[message.chat_id].to_api(),
        "date": message.date,
    }
    if message.edit_date is not None:
        data["edit_date"] = message.edit_date
    if message.reply_to is not None and not nested:
        replied = state.messages.get(message.chat_id, message.reply_to)
        if replied is not None and not replied.deleted:
            data["reply_to_message"] = message_json(state, replied, nested=True)
    if message.media_group_id is not None:
        data["media_group_id"] = message.media_group_id
    if message.text is not None:
        data["text"] = message.text
        if message.entities:
            data["entities"] = message.entities
    data.update(_media_json(message))
    if message.caption is not None:
        data["caption"] = message.caption
        if message.caption_entities:
            data["caption_entities"] = message.caption_entities
    if message.reply_markup is not None:
        data["reply_markup"] = message.reply_markup
    if message.link_preview_disabled and message.text is not None:
        data["link_preview_options"] = {"is_disabled": True}
    return data


def _media_json(message: StoredMessage) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if message.video is not None:
        data["video"] = video_json(message.video)
    if message.audio is not None:
        data["audio"] = audio_json(message.audio)
    if message.document is not None:
        data["document"] = document_json(message.document)
    return data


def video_json(record: FileRecord) -> dict[str, Any]:
    return {
        "file_id": record.file_id,
        "file_unique_id": record.file_unique_id,
        "duration": record.duration,
        "width": record.width,
        "height": record.height,
        "mime_type": "video/mp4",
        "file_size": record.size,
    }


def audio_json(record: FileRecord) -> dict[str, Any]:
    data: dict[str, Any] = {
        "file_id": record.file_id,
        "file_unique_id": record.file_unique_id,
        "duration": record.duration,
        "mime_type": _mime_type(record.file_name, "audio/mpeg"),
        "file_size": record.size,
    }
    for key in ("title", "performer", "file_name"):
        if (value := getattr(record, key)) is not None:
            data[key] = value
    return data


def document_json(record: FileRecord) -> dict[str, Any]:
    data: dict[str, Any] = {
        "file_id": record.file_id,
        "file_unique_id": record.file_unique_id,
        "mime_type": _mime_type(record.file_name, "application/octet-stream"),
        "file_size": record.size,
    }
    if record.file_name is not None:
        data["file_name"] = record.file_name
    return data


def _mime_type(file_name: str | None, default: str) -> str:
    if file_name is not None and file_name.lower().endswith(".m4a"):
        return "audio/mp4"  # mimetypes knows .m4a only on some systems
    guessed = mimetypes.guess_type(file_name)[0] if file_name else None
    return guessed or default
