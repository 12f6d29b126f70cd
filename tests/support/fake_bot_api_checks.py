"""What the fake Bot API's own tests read its answers with."""

from __future__ import annotations

from typing import Any

WRONG_FILE = "Bad Request: wrong file identifier/HTTP URL specified"


TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"


TEXT_BUTTON = (
    "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
)


ONE_INSTANCE = "make sure that only one bot instance is running"


def slice16(text: str, entity: dict[str, Any]) -> str:
    units = text.encode("utf-16-le")
    start, length = entity["offset"] * 2, entity["length"] * 2
    return units[start : start + length].decode("utf-16-le")
