"""Which chat and message a call is about, refused the way Telegram refuses a missing one."""

from __future__ import annotations

from typing import Any

from testkit.telegram.errors import bad_request, blocked, upgraded_to_supergroup
from testkit.telegram.messages import InlineMessage, StoredMessage
from testkit.telegram.params import Params
from testkit.telegram.people import Chat
from testkit.telegram.state import TelegramState


def chat_for(state: TelegramState, params: Params, key: str = "chat_id") -> Chat:
    """The chat by id or by @username, if the bot may still write to it."""
    value = params.raw.get(key)
    if value in (None, ""):
        raise bad_request("chat_id is empty")
    chat = _lookup(state, value)
    if chat is None:
        raise bad_request("chat not found")
    if chat.id in state.migrated:
        raise upgraded_to_supergroup(state.migrated[chat.id])
    if chat.id in state.blocked:
        raise blocked(chat.type)
    return chat


def _lookup(state: TelegramState, value: Any) -> Chat | None:
    if isinstance(value, str) and value.startswith("@"):
        return next((c for c in state.chats.values() if c.username == value[1:]), None)
    try:
        return state.chats.get(int(value))
    except (TypeError, ValueError):
        return None


def existing(state: TelegramState, chat: Chat, message_id: int | None, gone: str) -> StoredMessage:
    """The message, unless it was deleted or never was: then Bad Request `gone`."""
    message = state.messages.get(chat.id, message_id) if message_id is not None else None
    if message is None or message.deleted:
        raise bad_request(gone)
    return message


def reply_target(state: TelegramState, chat: Chat, params: Params) -> int | None:
    """The message a send replies to, from reply_parameters or the older reply_to_message_id."""
    reply = params.decoded("reply_parameters", "reply parameters")
    if isinstance(reply, dict) and reply.get("message_id") is not None:
        target, allow = reply["message_id"], bool(reply.get("allow_sending_without_reply"))
        if reply.get("chat_id") not in (None, chat.id, str(chat.id)):
            raise bad_request("message to be replied not found")
    else:
        target, allow = params.integer("reply_to_message_id"), params.flag("allow_sending_without_reply")
    if target is None:
        return None
    replied = state.messages.get(chat.id, int(target))
    if replied is None or replied.deleted:
        if allow:
            return None
        raise bad_request("message to be replied not found")
    return int(target)


EditTarget = tuple[Chat | None, InlineMessage | None, StoredMessage | None]


def edit_target(state: TelegramState, params: Params) -> EditTarget:
    """An edit addresses an inline message by inline_message_id, or a chat's message by chat and id."""
    inline_id = params.text("inline_message_id")
    if inline_id:
        inline = state.inline_messages.get(inline_id)
        if inline is None:
            raise bad_request("message to edit not found")
        return None, inline, None
    chat = chat_for(state, params)
    message = existing(state, chat, params.integer("message_id"), "message to edit not found")
    return chat, None, message
