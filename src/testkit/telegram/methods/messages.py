"""Text messages: sendMessage, editMessageText, editMessageReplyMarkup, deleteMessage."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from testkit.telegram.call import Call, Method
from testkit.telegram.errors import bad_request, not_modified
from testkit.telegram.messages import InlineMessage, Version
from testkit.telegram.methods.addressing import chat_for, edit_target, existing, reply_target
from testkit.telegram.methods.formatting import apply_send_options, message_text
from testkit.telegram.methods.keyboards import markup
from testkit.telegram.rendering import message_json
from testkit.telegram.state import TelegramState


async def send_message(state: TelegramState, call: Call) -> Any:
    params = call.params
    chat = chat_for(state, params)
    text, entities = message_text(params)
    keyboard = markup(params)
    reply_to = reply_target(state, chat, params)
    message = state.messages.add(
        chat.id,
        state.bot,
        from_bot=True,
        text=text,
        entities=entities,
        reply_to=reply_to,
        reply_markup=keyboard,
        source=params.text("text"),
    )
    apply_send_options(message, params)
    return message_json(state, message)


async def edit_message_text(state: TelegramState, call: Call) -> Any:
    params = call.params
    _chat, inline, message = edit_target(state, params)
    text, entities = message_text(params)
    keyboard = markup(params)
    if inline is not None:
        return _edit_inline_text(inline, text, keyboard)
    assert message is not None
    if not message.from_bot:
        raise bad_request("message can't be edited")
    if message.text is None:
        raise bad_request("there is no text in the message to edit")
    if text == message.text and entities == message.entities and keyboard == message.reply_markup:
        raise not_modified()
    message.text, message.entities, message.reply_markup = text, entities, keyboard
    message.edit_date = int(time.time())
    message.parse_mode = params.text("parse_mode")
    message.history.append(Version(text, tuple(entities), keyboard, time.monotonic(), params.text("text")))
    return message_json(state, message)


def _edit_inline_text(inline: InlineMessage, text: str, keyboard: dict[str, Any] | None) -> bool:
    if inline.media is not None:
        raise bad_request("there is no text in the message to edit")
    if text == inline.text and keyboard == inline.reply_markup:
        raise not_modified()
    inline.text, inline.reply_markup = text, keyboard
    inline.texts.append(text)
    return True


async def edit_message_reply_markup(state: TelegramState, call: Call) -> Any:
    params = call.params
    _chat, inline, message = edit_target(state, params)
    keyboard = markup(params)
    if inline is not None:
        if keyboard == inline.reply_markup:
            raise not_modified()
        inline.reply_markup = keyboard
        return True
    assert message is not None
    if not message.from_bot:
        raise bad_request("message can't be edited")
    if keyboard == message.reply_markup:
        raise not_modified()
    message.reply_markup = keyboard
    message.edit_date = int(time.time())
    previous = message.history[-1]
    message.history.append(dataclasses.replace(previous, reply_markup=keyboard, at=time.monotonic()))
    return message_json(state, message)


async def delete_message(state: TelegramState, call: Call) -> Any:
    params = call.params
    chat = chat_for(state, params)
    message = existing(state, chat, params.integer("message_id"), "message to delete not found")
    message.deleted = True
    message.deleted_by_bot = True
    return True


METHODS: dict[str, Method] = {
    "sendMessage": send_message,
    "editMessageText": edit_message_text,
    "editMessageReplyMarkup": edit_message_reply_markup,
    "deleteMessage": delete_message,
}
