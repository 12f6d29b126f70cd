"""Button callback data the bot can verify: `action:object:tag`.

Telegram hands the bot whatever callback data a (modified) client sends, up to 64 bytes, from
any chat. The tag binds the action and the object to the chat and the message the button was
posted under, so data copied to another message, another chat, or altered at all, verifies as
nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.trust.mac import TAG_CHARS, tag, tag_matches

MAX_CALLBACK_BYTES = 64
_ACTION = r"[a-z_]{1,16}"
_OBJECT = r"[A-Za-z0-9_-]{1,24}"
_SHAPE = re.compile(rf"({_ACTION}):({_OBJECT}):([A-Za-z0-9_-]{{{TAG_CHARS}}})")


@dataclass(frozen=True, slots=True)
class ButtonRef:
    """What a button does (`action`) to which of the bot's objects (`object_id`)."""

    action: str
    object_id: str

    def __post_init__(self) -> None:
        if not re.fullmatch(_ACTION, self.action) or not re.fullmatch(_OBJECT, self.object_id):
            raise ValueError(f"not a signable button: {self.action!r} on {self.object_id!r}")


def sign_button(key: bytes, ref: ButtonRef, chat_id: int, message_id: int) -> str:
    mac = tag(key, ref.action, ref.object_id, chat_id, message_id)
    data = f"{ref.action}:{ref.object_id}:{mac}"
    assert len(data.encode()) <= MAX_CALLBACK_BYTES, data  # the shape bounds it at 58
    return data


def verify_button(key: bytes, data: str, chat_id: int, message_id: int) -> ButtonRef | None:
    """The button `data` names, if the bot signed it for this chat and message; else None."""
    found = _SHAPE.fullmatch(data)
    if found is None:
        return None
    action, object_id, given = found.groups()
    if not tag_matches(key, given, action, object_id, chat_id, message_id):
        return None
    return ButtonRef(action, object_id)
