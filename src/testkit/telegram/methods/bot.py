"""The bot's own identity and session: getMe, logOut, close."""

from __future__ import annotations

from typing import Any

from testkit.telegram.call import Call, Method
from testkit.telegram.state import TelegramState


async def get_me(state: TelegramState, call: Call) -> Any:
    return state.bot.to_api() | {
        "can_join_groups": True,
        "can_read_all_group_messages": state.reads_all_group_messages,
        "supports_inline_queries": True,
        "can_connect_to_business": False,
        "has_main_web_app": False,
    }


async def ok(state: TelegramState, call: Call) -> Any:
    return True


METHODS: dict[str, Method] = {"getMe": get_me, "logOut": ok, "close": ok}
