"""The Bot API methods the fake answers, grouped by what they are about."""

from __future__ import annotations

from testkit.telegram.call import Method
from testkit.telegram.methods import (
    albums,
    audio,
    bot,
    callbacks,
    chats,
    commands,
    documents,
    inline,
    media,
    messages,
    reactions,
    updates,
)

_GROUPS = (
    bot,
    commands,
    updates,
    messages,
    chats,
    reactions,
    media,
    albums,
    audio,
    documents,
    callbacks,
    inline,
)


def method_table() -> dict[str, tuple[str, Method]]:
    """lower-cased name → (the name as documented, the method): Telegram ignores the case."""
    return {name.lower(): (name, method) for group in _GROUPS for name, method in group.METHODS.items()}
