"""Links: finding them in a message, and the site each belongs to.

Telegram gives entity offsets and lengths in UTF-16 code units, so the text is sliced in that
encoding. Only `url` entities count: a `text_link` hides its target behind other words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
_MAX_URL_LENGTH = 2048


@dataclass(frozen=True, slots=True)
class Entity:
    type: str
    offset: int
    length: int


def extract_urls(text: str | None, entities: Sequence[Entity] | None) -> list[str]:
    """The distinct URLs of a message, in order, each with a scheme. Never raises."""
    if not text or not entities:
        return []
    units = text.encode("utf-16-le", "surrogatepass")
    found = (_slice(units, e) for e in entities if e.type == "url")
    return _dedupe(_normalize(raw) for raw in found if raw)


def _slice(units: bytes, entity: Entity) -> str | None:
    start, end = entity.offset, entity.offset + entity.length
    if entity.offset < 0 or entity.length <= 0 or end * 2 > len(units):
        return None
    return units[start * 2 : end * 2].decode("utf-16-le", "replace")


def _normalize(raw: str) -> str | None:
    url = raw.strip()
    if not url or len(url) > _MAX_URL_LENGTH or any(c.isspace() for c in url):
        return None
    return url if _SCHEME.match(url) else f"https://{url}"


def _dedupe(urls: Iterable[str | None]) -> list[str]:
    return list(dict.fromkeys(u for u in urls if u))


def site_key(url: str) -> str:
    """The circuit-breaker key of a link: its host, without a leading www."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        host = ""
    return host.lower().removeprefix("www.")
