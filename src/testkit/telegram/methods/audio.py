"""sendAudio: a sound with its title, performer and duration, shown in the chat's music player.

Telegram plays MP3 and M4A as audio; any other file sent with sendAudio arrives as a document
(the bot's adapter must take what Telegram kept). The kind is told by the file's name, as the Bot
API server tells a new upload's MIME type.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import PurePath
from typing import Any

from testkit.telegram.call import Call, Method
from testkit.telegram.methods.addressing import chat_for, reply_target
from testkit.telegram.methods.file_input import Wanted, resolve_file
from testkit.telegram.methods.formatting import apply_send_options, caption
from testkit.telegram.methods.keyboards import markup
from testkit.telegram.methods.thumbnails import thumbnail_of
from testkit.telegram.records import AudioRecord
from testkit.telegram.rendering import message_json
from testkit.telegram.state import TelegramState

AUDIO_SUFFIXES = frozenset({".mp3", ".m4a"})


def audio_kind(file_name: str | None) -> str:
    return "audio" if PurePath(file_name or "").suffix.lower() in AUDIO_SUFFIXES else "document"


AUDIO = Wanted("audio", audio_kind, "audio")


async def send_audio(state: TelegramState, call: Call) -> Any:
    params = call.params
    chat = chat_for(state, params)
    text, entities = caption(params)
    keyboard = markup(params)
    reply_to = reply_target(state, chat, params)
    value = params.raw.get("audio")
    if value is None and "audio" in call.uploads:
        value = "attach://audio"
    record, source = await resolve_file(state, call, value, params, "audio", AUDIO)
    message = state.messages.add(chat.id, state.bot, from_bot=True, reply_to=reply_to, reply_markup=keyboard)
    if record.kind == "audio":
        message.audio = record
    else:
        message.document = record
    message.caption, message.caption_entities = text, entities
    message.history[-1] = dataclasses.replace(message.history[-1], text=text, source=params.text("caption"))
    apply_send_options(message, params)
    state.journal.audios.append(
        AudioRecord(
            chat_id=chat.id,
            message_id=message.message_id,
            file=record,
            source=source,
            reply_to=reply_to,
            caption=text,
            duration=params.integer("duration"),
            title=params.text("title"),
            performer=params.text("performer"),
            thumbnail=thumbnail_of(call),
            silent=message.silent,
            reply_markup=keyboard,
            at=time.monotonic(),
        )
    )
    return message_json(state, message)


METHODS: dict[str, Method] = {"sendAudio": send_audio}
