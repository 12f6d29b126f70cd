"""sendDocument: a file as a file, its bytes as they were sent (no player, no re-encoding).

A document's file_id sends only a document, and a video's only a video (Telegram's wording:
"can't use file of type Video as Document"). Whether Telegram's servers would file an upload as
a video when content type detection stays on is not in the open-source server: the fake keeps
every document a document and records whether the call disabled the detection, so a test can
see that the bot asked for the file to stay a file.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from testkit.telegram.call import Call, Method
from testkit.telegram.methods.addressing import chat_for, reply_target
from testkit.telegram.methods.file_input import Wanted, resolve_file
from testkit.telegram.methods.formatting import apply_send_options, caption
from testkit.telegram.methods.keyboards import markup
from testkit.telegram.methods.thumbnails import thumbnail_of
from testkit.telegram.records import DocumentRecord
from testkit.telegram.rendering import message_json
from testkit.telegram.state import TelegramState

DOCUMENT = Wanted("document", lambda _name: "document", "document")


async def send_document(state: TelegramState, call: Call) -> Any:
    params = call.params
    chat = chat_for(state, params)
    text, entities = caption(params)
    keyboard = markup(params)
    reply_to = reply_target(state, chat, params)
    value = params.raw.get("document")
    if value is None and "document" in call.uploads:
        value = "attach://document"
    record, source = await resolve_file(state, call, value, params, "document", DOCUMENT)
    message = state.messages.add(chat.id, state.bot, from_bot=True, reply_to=reply_to, reply_markup=keyboard)
    message.document = record
    message.caption, message.caption_entities = text, entities
    message.history[-1] = dataclasses.replace(message.history[-1], text=text, source=params.text("caption"))
    apply_send_options(message, params)
    state.journal.documents.append(
        DocumentRecord(
            chat_id=chat.id,
            message_id=message.message_id,
            file=record,
            source=source,
            reply_to=reply_to,
            caption=text,
            thumbnail=thumbnail_of(call),
            content_type_detection=not params.flag("disable_content_type_detection"),
            silent=message.silent,
            reply_markup=keyboard,
            at=time.monotonic(),
        )
    )
    return message_json(state, message)


METHODS: dict[str, Method] = {"sendDocument": send_document}
