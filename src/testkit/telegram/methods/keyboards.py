"""Inline keyboards (reply_markup), checked the way Telegram checks their buttons."""

from __future__ import annotations

import re
from typing import Any

from testkit.telegram.errors import bad_request
from testkit.telegram.limits import MAX_CALLBACK_DATA_BYTES
from testkit.telegram.params import Params

_TEXT_BUTTON = "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
_ACTION_KEYS = ("switch_inline_query", "switch_inline_query_current_chat", "web_app", "pay")


def markup(params: Params) -> dict[str, Any] | None:
    value = params.decoded("reply_markup", "reply keyboard markup")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    rows = value.get("inline_keyboard")
    if rows is None:
        return value
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad_request('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays')
    for row in rows:
        for button in row:
            _check_button(button)
    return {"inline_keyboard": [[dict(b) for b in row] for row in rows]}


def _check_button(button: Any) -> None:
    if not isinstance(button, dict) or not str(button.get("text", "")).strip():
        raise bad_request(_TEXT_BUTTON)
    data = button.get("callback_data")
    url = button.get("url")
    if data is None and url is None and not any(key in button for key in _ACTION_KEYS):
        raise bad_request(_TEXT_BUTTON)
    if data is not None and not 1 <= len(str(data).encode()) <= MAX_CALLBACK_DATA_BYTES:
        raise bad_request("BUTTON_DATA_INVALID")
    if url is not None and not re.match(r"^(https?|tg)://\S+$", str(url)):
        raise bad_request("BUTTON_URL_INVALID")
