"""sendMediaGroup: videos (or documents) sent as one album, each item a message of its own.

As the official server and TDLib answer: `media` is a JSON array of InputMedia, each naming its
file by `attach://<part>` (an upload in the same request), by file_id, or (local mode) by path;
at most 10 items ("too many messages to send as an album"), at least one ("there are no messages
to send"); one item is sent as a message outside any album. Documents go only with documents, and
a document of an album is always kept a file. The album takes no reply_markup. An item that
cannot be read fails the whole album, before anything is sent: a refused album posts nothing.
Each item counts as a message against the flood limits (see `album_size`).

Photos and audio files are not modelled (vidrelay sends neither as an album): the fake refuses
them in its own words.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from dataclasses import dataclass
from typing import Any

from testkit.telegram.call import Call, Method
from testkit.telegram.errors import ApiError, bad_request
from testkit.telegram.files import FileRecord
from testkit.telegram.jpeg import Thumbnail
from testkit.telegram.messages import StoredMessage
from testkit.telegram.methods.addressing import chat_for, reply_target
from testkit.telegram.methods.documents import DOCUMENT
from testkit.telegram.methods.file_input import VIDEO, Wanted, resolve_file
from testkit.telegram.methods.formatting import apply_send_options, caption
from testkit.telegram.methods.thumbnails import attached_thumbnail
from testkit.telegram.params import Params
from testkit.telegram.people import Chat
from testkit.telegram.records import DocumentRecord, VideoRecord
from testkit.telegram.rendering import message_json
from testkit.telegram.state import TelegramState

MAX_ALBUM_ITEMS = 10
_KINDS: dict[str, Wanted] = {"video": VIDEO, "document": DOCUMENT}
_UNMODELLED = frozenset({"photo", "audio", "live_photo"})
_group_ids = itertools.count(13_000_000_000_000_000)


@dataclass(frozen=True, slots=True)
class _Item:
    kind: str
    described: Params
    file: FileRecord
    source: str
    thumbnail: Thumbnail | None


def album_size(params: Params) -> int:
    """How many messages a sendMediaGroup call would post (1 when it cannot be read: it fails)."""
    try:
        media = params.decoded("media", "media")
    except ApiError:  # an unreadable album is refused by the method itself
        return 1
    return max(len(media), 1) if isinstance(media, list) else 1


async def send_media_group(state: TelegramState, call: Call) -> Any:
    params = call.params
    media = params.decoded("media", "media")
    if media is None:
        raise bad_request('parameter "media" is required')
    if not isinstance(media, list):
        raise bad_request("expected an Array of InputMedia")
    items = [await _item(state, call, entry, index) for index, entry in enumerate(media)]
    if not items:
        raise bad_request("there are no messages to send")
    if len(items) > MAX_ALBUM_ITEMS:
        raise bad_request("too many messages to send as an album")
    if len({item.kind == "document" for item in items}) > 1:
        raise bad_request("document can't be mixed with other media types")
    chat = chat_for(state, params)
    reply_to = reply_target(state, chat, params)
    group_id = str(next(_group_ids)) if len(items) > 1 else None
    return [message_json(state, _post(state, chat, item, params, reply_to, group_id)) for item in items]


async def _item(state: TelegramState, call: Call, entry: Any, index: int) -> _Item:
    if not isinstance(entry, dict):
        raise _unreadable("expected an Object")
    described = Params(entry)
    caption(described)  # a caption Telegram cannot take fails the album before any file is read
    kind = entry.get("type")
    if not isinstance(kind, str):
        raise _unreadable('Can\'t find field "type"')
    if kind in _UNMODELLED:
        raise bad_request(f"the fake Bot API does not model {kind} items in albums")
    wanted = _KINDS.get(kind)
    if wanted is None:
        raise _unreadable(f'type "{kind}" is unsupported')
    value = entry.get("media")
    attached = isinstance(value, str) and value.startswith("attach://")
    if not isinstance(value, str) or not value or (attached and value[9:] not in call.uploads):
        raise _unreadable("media not found")
    record, source = await resolve_file(state, call, value, described, f"media{index}", wanted)
    thumbnail = attached_thumbnail(call, entry.get("thumbnail"), f"thumbnail{index}")
    return _Item(kind, described, record, source, thumbnail)


def _unreadable(why: str) -> ApiError:
    return bad_request(f"can't parse InputMedia: {why}")


def _post(
    state: TelegramState, chat: Chat, item: _Item, params: Params, reply_to: int | None, group_id: str | None
) -> StoredMessage:
    text, entities = caption(item.described)
    message = state.messages.add(chat.id, state.bot, from_bot=True, reply_to=reply_to)
    if item.kind == "video":
        message.video = item.file
    else:
        message.document = item.file
    message.caption, message.caption_entities = text, entities
    message.media_group_id = group_id
    source = item.described.text("caption")
    message.history[-1] = dataclasses.replace(message.history[-1], text=text, source=source)
    apply_send_options(message, params)
    message.parse_mode = item.described.text("parse_mode")
    _record(state, message, item, reply_to, text)
    return message


def _record(
    state: TelegramState, message: StoredMessage, item: _Item, reply_to: int | None, text: str | None
) -> None:
    at, described, file = time.monotonic(), item.described, item.file
    if item.kind == "document":
        state.journal.documents.append(
            DocumentRecord(
                chat_id=message.chat_id,
                message_id=message.message_id,
                file=file,
                source=item.source,
                reply_to=reply_to,
                caption=text,
                thumbnail=item.thumbnail,
                content_type_detection=False,  # the server sets the flag for every album document
                silent=message.silent,
                reply_markup=None,
                at=at,
                media_group_id=message.media_group_id,
            )
        )
        return
    state.journal.videos.append(
        VideoRecord(
            chat_id=message.chat_id,
            message_id=message.message_id,
            sha256=file.sha256,
            size=file.size,
            file_id=file.file_id,
            file_unique_id=file.file_unique_id,
            source=item.source,
            reply_to=reply_to,
            caption=text,
            duration=described.integer("duration") or file.duration,
            width=described.integer("width") or file.width,
            height=described.integer("height") or file.height,
            supports_streaming=described.flag("supports_streaming"),
            silent=message.silent,
            reply_markup=None,
            at=at,
            thumbnail=item.thumbnail,
            media_group_id=message.media_group_id,
        )
    )


METHODS: dict[str, Method] = {"sendMediaGroup": send_media_group}
