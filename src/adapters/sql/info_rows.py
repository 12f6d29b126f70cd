"""Scraped video info as stored JSON text, decoded strictly: a row that does not match VideoInfo's
fields and types is CorruptEntry (the cache then treats it as a miss), never a half-built value."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Sequence
from typing import Any

from adapters.sql.json_text import CorruptEntry, dump_json
from ports.media import VideoInfo

_INFO_HINTS: dict[str, Any] = typing.get_type_hints(VideoInfo)
_INFO_REQUIRED = frozenset(
    f.name
    for f in dataclasses.fields(VideoInfo)
    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
)


def dump_entries(entries: Sequence[VideoInfo]) -> str:
    return dump_json([dataclasses.asdict(entry) for entry in entries])


def load_entries(text: str) -> list[VideoInfo]:
    """Decode a stored list of entries; CorruptEntry for bad JSON or any wrong shape."""
    try:
        raw = json.loads(text)
    except ValueError as error:
        raise CorruptEntry(f"not JSON: {error}") from error
    if not isinstance(raw, list):
        raise CorruptEntry("not a list of entries")
    return [_entry(item) for item in raw]


def _entry(item: object) -> VideoInfo:
    if not isinstance(item, dict):
        raise CorruptEntry("an entry is not an object")
    unknown = item.keys() - _INFO_HINTS.keys()
    missing = _INFO_REQUIRED - item.keys()
    if unknown or missing:
        raise CorruptEntry(f"unknown fields {sorted(unknown)}, missing fields {sorted(missing)}")
    for name, value in item.items():
        if not _fits(value, _INFO_HINTS[name]):
            raise CorruptEntry(f"field {name!r} holds {type(value).__name__}")
    return VideoInfo(**item)


def _fits(value: object, hint: Any) -> bool:
    if isinstance(hint, types.UnionType):
        return any(_fits(value, option) for option in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)
