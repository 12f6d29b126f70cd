"""Videos: sendVideo, and editMessageMedia (a placeholder's video swapped in place)."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from testkit.telegram.call import Call, Method
from testkit.telegram.errors import bad_request
from testkit.telegram.jpeg import Thumbnail, jpeg_size
from testkit.telegram.messages import Version
from testkit.telegram.methods.addressing import chat_for, edit_target, reply_target
from testkit.telegram.methods.formatting import apply_send_options, caption
from testkit.telegram.methods.keyboards import markup
from testkit.telegram.methods.video_input import resolve_video
from testkit.telegram.params import Params
from testkit.telegram.records import MediaEdit, VideoRecord
from testkit.telegram.rendering import message_json
from testkit.telegram.world import World


async def send_video(world: World, call: Call) -> Any:
    params = call.params
    chat = chat_for(world, params)
    text, entities = caption(params)
    keyboard = markup(params)
    reply_to = reply_target(world, chat, params)
    value = params.raw.get("video")
    if value is None and "video" in call.uploads:
        value = "attach://video"
    record, source = await resolve_video(world, call, value, params, "video")
    message = world.messages.add(chat.id, world.bot, from_bot=True, reply_to=reply_to, reply_markup=keyboard)
    message.video = record
    message.caption = text
    message.caption_entities = entities
    message.history[-1] = dataclasses.replace(message.history[-1], text=text, source=params.text("caption"))
    apply_send_options(message, params)
    world.journal.videos.append(
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
    return message_json(world, message)


def thumbnail_of(call: Call) -> Thumbnail | None:
    """A thumbnail is only ever a new upload: `attach://<name>`, or a file part named thumbnail."""
    value = call.params.raw.get("thumbnail")
    name = value.removeprefix("attach://") if isinstance(value, str) else "thumbnail"
    upload = call.uploads.get(name)
    if upload is None:
        return None
    call.files["thumbnail"] = upload.sha256
    size = jpeg_size(upload.head)
    return Thumbnail(upload.sha256, upload.size, *(size if size is not None else (None, None)))


async def edit_message_media(world: World, call: Call) -> Any:
    params = call.params
    _chat, inline, message = edit_target(world, params)
    media = params.decoded("media", "input media")
    if not isinstance(media, dict):
        raise bad_request("there is no media in the request")
    if media.get("type") != "video":
        raise bad_request("can't use this media type here")
    described = Params(media)
    text, entities = caption(described)
    record, _source = await resolve_video(world, call, media.get("media"), described, "media")
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
    world.journal.media_edits.append(edit)
    if inline is not None:
        inline.media, inline.reply_markup = record, keyboard
        return True
    assert message is not None
    if not message.from_bot:
        raise bad_request("message can't be edited")
    message.video, message.caption, message.caption_entities = record, text, entities
    message.text, message.entities, message.reply_markup = None, [], keyboard
    message.edit_date = int(time.time())
    message.history.append(
        Version(text, tuple(entities), keyboard, time.monotonic(), described.text("caption"))
    )
    return message_json(world, message)


METHODS: dict[str, Method] = {"sendVideo": send_video, "editMessageMedia": edit_message_media}
