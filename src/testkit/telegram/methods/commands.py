"""The bot's command menus: setMyCommands, getMyCommands, deleteMyCommands, by scope and language.

Checked as the real Bot API checks them: a command of 1-32 lower-case letters, digits and
underscores (else BOT_COMMAND_INVALID), a description of 1-256 characters, at most 100 commands,
a two-letter language code, and a chat scope naming a chat the bot knows.
"""

from __future__ import annotations

import re
from typing import Any

from testkit.telegram.call import Call, Method
from testkit.telegram.errors import bad_request
from testkit.telegram.state import MenuKey, TelegramState

_COMMAND = re.compile(r"[a-z0-9_]{1,32}")
_LANGUAGE = re.compile(r"[a-z]{2}")
_SCOPES = frozenset(
    {
        "default",
        "all_private_chats",
        "all_group_chats",
        "all_chat_administrators",
        "chat",
        "chat_administrators",
    }
)
MAX_COMMANDS = 100


def menu_key(state: TelegramState, call: Call) -> MenuKey:
    scope = call.params.decoded("scope", "scope") or {"type": "default"}
    if not isinstance(scope, dict) or scope.get("type") not in _SCOPES:
        raise bad_request("unsupported scope type specified")
    language = call.params.text("language_code") or ""
    if language and not _LANGUAGE.fullmatch(language):
        raise bad_request("invalid language code specified")
    chat_id: int | None = None
    if str(scope["type"]).startswith("chat"):
        chat_id = _known_chat(state, scope.get("chat_id"))
    return MenuKey(str(scope["type"]), chat_id, language)


def _known_chat(state: TelegramState, value: Any) -> int:
    try:
        chat_id = int(value)
    except (TypeError, ValueError):
        raise bad_request("chat not found") from None
    if chat_id not in state.chats:
        raise bad_request("chat not found")
    return chat_id


def _commands(call: Call) -> list[dict[str, str]]:
    commands = call.params.decoded("commands", "commands")
    if not isinstance(commands, list):
        raise bad_request("can't parse commands JSON object")
    if len(commands) > MAX_COMMANDS:
        raise bad_request("too many commands specified")
    checked = []
    for command in commands:
        if not isinstance(command, dict):
            raise bad_request("can't parse BotCommand")
        name, description = str(command.get("command", "")), str(command.get("description", "")).strip()
        if not _COMMAND.fullmatch(name):
            raise bad_request("BOT_COMMAND_INVALID")
        if not description:
            raise bad_request("command description must be non-empty")
        if len(description) > 256:
            raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        checked.append({"command": name, "description": description})
    return checked


async def set_my_commands(state: TelegramState, call: Call) -> Any:
    key, commands = menu_key(state, call), _commands(call)
    if commands:
        state.menus[key] = commands
    else:
        state.menus.pop(key, None)
    return True


async def get_my_commands(state: TelegramState, call: Call) -> Any:
    return list(state.menus.get(menu_key(state, call), []))


async def delete_my_commands(state: TelegramState, call: Call) -> Any:
    state.menus.pop(menu_key(state, call), None)
    return True


METHODS: dict[str, Method] = {
    "setMyCommands": set_my_commands,
    "getMyCommands": get_my_commands,
    "deleteMyCommands": delete_my_commands,
}
