"""Chats as the bot sees them: getChat, sendChatAction."""

from __future__ import annotations

from typing import Any

from testkit.telegram.call import Call, Method
from testkit.telegram.errors import bad_request
from testkit.telegram.methods.addressing import chat_for
from testkit.telegram.world import World


async def get_chat(world: World, call: Call) -> Any:
    chat = chat_for(world, call.params)
    return chat.to_api() | {"accent_color_id": 0, "max_reaction_count": 11}


async def send_chat_action(world: World, call: Call) -> Any:
    chat = chat_for(world, call.params)
    action = call.params.text("action") or ""
    if not action:
        raise bad_request("action is empty")
    world.journal.chat_actions.append((chat.id, action))
    return True


METHODS: dict[str, Method] = {"getChat": get_chat, "sendChatAction": send_chat_action}
