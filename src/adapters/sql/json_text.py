"""The JSON text both SQL stores keep for payloads and URL lists; nothing else is encoded."""

from __future__ import annotations

import json

from ports.json import Payload


class CorruptEntry(ValueError):
    """A stored JSON value that does not decode to what it should."""


def dump_json(value: object) -> str:
    # ASCII escapes keep odd Unicode (lone surrogates) storable as SQLite text.
    return json.dumps(value, separators=(",", ":"))


def load_payload(text: str) -> Payload:
    """A payload row is only ever written by dump_json; if it was damaged anyway, keep its text
    for the operator and let the job fail (and dead-letter) instead of wedging the queue."""
    try:
        value = json.loads(text)
    except ValueError:
        return {"corrupt_payload": text}
    return value if isinstance(value, dict) else {"corrupt_payload": text}


def load_urls(text: str) -> list[str]:
    try:
        raw = json.loads(text)
    except ValueError as error:
        raise CorruptEntry(f"not JSON: {error}") from error
    if not isinstance(raw, list) or not all(isinstance(u, str) for u in raw):
        raise CorruptEntry("not a list of URLs")
    return raw
