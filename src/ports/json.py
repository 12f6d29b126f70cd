"""The JSON shape of job payloads: ids and values only, never live objects."""

from __future__ import annotations

from typing import TypeAlias

JsonScalar: TypeAlias = str | int | float | bool | None
JsonValue: TypeAlias = JsonScalar | list["JsonValue"] | dict[str, "JsonValue"]
Payload: TypeAlias = dict[str, JsonValue]
