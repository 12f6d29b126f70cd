"""setMessageReaction, with the emoji Telegram allows as a reaction (any other is REACTION_INVALID)."""

from __future__ import annotations

import time
from typing import Any

from testkit.telegram.call import Call, Method
from testkit.telegram.errors import bad_request
from testkit.telegram.methods.addressing import chat_for, existing
from testkit.telegram.records import ReactionRecord
from testkit.telegram.state import TelegramState

# fmt: off
ALLOWED_REACTIONS = frozenset(
    (
        "❤", "👍", "👎", "🔥", "🥰", "👏", "😁", "🤔", "🤯", "😱", "🤬", "😢", "🎉", "🤩",
        "🤮", "💩", "🙏", "👌", "🕊", "🤡", "🥱", "🥴", "😍", "🐳", "❤\u200d🔥", "🌚", "🌭", "💯",
        "🤣", "⚡", "🍌", "🏆", "💔", "🤨", "😐", "🍓", "🍾", "💋", "🖕", "😈", "😴", "😭",
        "🤓", "👻", "👨\u200d💻", "👀", "🎃", "🙈", "😇", "😨", "🤝", "✍", "🤗", "🫡", "🎅", "🎄",
        "☃", "💅", "🤪", "🗿", "🆒", "💘", "🙉", "🦄", "😘", "💊", "🙊", "😎", "👾", "🤷\u200d♂",
        "🤷", "🤷\u200d♀", "😡",
    )
)
# fmt: on


async def set_message_reaction(state: TelegramState, call: Call) -> Any:
    params = call.params
    chat = chat_for(state, params)
    message = existing(state, chat, params.integer("message_id"), "message to react not found")
    reaction = params.decoded("reaction", "reaction") or []
    if not isinstance(reaction, list):
        raise bad_request("REACTION_INVALID")
    emojis: list[str] = []
    for item in reaction:
        if not isinstance(item, dict) or item.get("type") != "emoji":
            raise bad_request("REACTION_INVALID")
        emoji = str(item.get("emoji", ""))
        if emoji not in ALLOWED_REACTIONS:
            raise bad_request("REACTION_INVALID")
        emojis.append(emoji)
    state.journal.reactions.append(
        ReactionRecord(chat.id, message.message_id, tuple(emojis), time.monotonic())
    )
    return True


METHODS: dict[str, Method] = {"setMessageReaction": set_message_reaction}
