"""Videos: sendVideo, and editMessageMedia (a placeholder's video or audio swapped in place)."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from testkit.telegram.call import Call, Method
from testkit.telegram.errors import bad_request
from testkit.telegram.messages import Version
from testkit.telegram.methods.addressing import chat_for, edit_target, reply_target
from testkit.telegram.methods.file_input import VIDEO, Wanted, resolve_file
from testkit.telegram.methods.formatting import apply_send_options, caption
from testkit.telegram.methods.keyboards import markup
from testkit.telegram.methods.thumbnails import thumbnail_of
from testkit.telegram.params import Params
from testkit.telegram.records import MediaEdit, VideoRecord
from testkit.telegram.rendering import message_json
from testkit.telegram.state import TelegramState


async def send_video(state: TelegramState, call: Call) -> Any:
    params = call.params
    chat = chat_for(state, params)
    text, entities = caption(params)
    keyboard = markup(params)
    reply_to = reply_target(state, chat, params)
    value = params.raw.get("video")
    if value is None and "video" in call.uploads:
        value = "attach://video"
    record, source = await resolve_file(state, call, value, params, "video")
    message = state.messages.add(chat.id, state.bot, from_bot=True, reply_to=reply_to, reply_markup=keyboard)
    message.video = record
    message.caption = text
    message.caption_entities = entities
    message.history[-1] = dataclasses.replace(message.history[-1], text=text, source=params.text("caption"))
    apply_send_options(message, params)
    state.journal.videos.append(
        VideoRecord(
            chat_id=chat.id,
            message_id=message.message_id,
            sha256=record.sha256,
            size=record.size,
            file_id=record.file_id,
            file_unique_id=record.file_unique_id,
            source=source,
            reply_to=reply_to,
            caption=text,
            duration=params.integer("duration") or record.duration,
            width=params.integer("width") or record.width,
            height=params.integer("height") or record.height,
            supports_streaming=params.flag("supports_streaming"),
            silent=message.silent,
            reply_markup=keyboard,
            at=time.monotonic(),
            thumbnail=thumbnail_of(call),
        )
    )
    return message_json(state, message)


_EDITABLE = {"video": VIDEO, "audio": Wanted("audio", lambda _name: "audio", "audio")}
"""What a message's media may become, and of which kind a file_id must then be."""


async def edit_message_media(state: TelegramState, call: Call) -> Any:
    params = call.params
    _chat, inline, message = edit_target(state, params)
    media = params.decoded("media", "input media")
    if not isinstance(media, dict):
        raise bad_request("there is no media in the request")
    wanted = _EDITABLE.get(str(media.get("type")))
    if wanted is None:
        raise bad_request("can't use this media type here")
    described = Params(media)
    text, entities = caption(described)
    record, _source = await resolve_file(state, call, media.get("media"), described, "media", wanted)
    keyboard = markup(params)
    edit = MediaEdit(
        inline.inline_message_id if inline else None,
        message.chat_id if message else None,
        message.message_id if message else None,
        media,
        record,
        keyboard,
        time.monotonic(),
    )
    state.journal.media_edits.append(edit)
    if inline is not None:
        inline.media, inline.reply_markup, inline.text = record, keyboard, text
        inline.texts.append(text)
        return True
    assert message is not None
    if not message.from_bot:
        raise bad_request("message can't be edited")
    message.video = record if record.kind == "video" else None
    message.audio = record if record.kind == "audio" else None
    message.caption, message.caption_entities = text, entities
    message.text, message.entities, message.reply_markup = None, [], keyboard
    message.edit_date = int(time.time())
    message.history.append(
        Version(text, tuple(entities), keyboard, time.monotonic(), described.text("caption"))
    )
    return message_json(state, message)


METHODS: dict[str, Method] = {"sendVideo": send_video, "editMessageMedia": edit_message_media}
