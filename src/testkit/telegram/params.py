"""Typed access to one call's parameters, whatever the body encoding was.

A form or multipart body carries every value as a string (JSON objects still encoded); a JSON body
carries them typed. Each accessor accepts both, the way the real Bot API does.
"""

from __future__ import annotations

import json
from typing import Any

from testkit.telegram.errors import bad_request


class Params:
    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw

    def has(self, key: str) -> bool:
        return self.raw.get(key) not in (None, "")

    def text(self, key: str) -> str | None:
        value = self.raw.get(key)
        if value is None:
            return None
        return value if isinstance(value, str) else json.dumps(value)

    def integer(self, key: str) -> int | None:
        value = self.raw.get(key)
        if value is None or value == "":
            return None
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, int):
            return value
        try:
            return int(str(value).strip())
        except ValueError:
            raise bad_request(f"invalid {key} specified") from None

    def flag(self, key: str) -> bool:
        value = self.raw.get(key)
        if isinstance(value, str):
            return value.strip().lower() in {"true", "1"}
        return bool(value)

    def decoded(self, key: str, what: str | None = None) -> Any:
        """A JSON-valued parameter (reply_markup, media…), decoded if it came as a string."""
        value = self.raw.get(key)
        if not isinstance(value, str):
            return value
        if value == "":
            return None
        try:
            return json.loads(value)
        except ValueError:
            raise bad_request(f"can't parse {what or key} JSON object") from None
