"""Splitting a long HTML log into Telegram-sized messages.

Telegram measures text in UTF-16 code units and refuses unbalanced tags, so a cut never falls
inside a tag, an entity (`&amp;`) or a surrogate pair, and tags open at a cut are closed at the
end of one chunk and reopened at the start of the next.
"""

from __future__ import annotations

import re

MESSAGE_LIMIT = 4096
CONTINUED = "<i>...continued...</i>\n\n"
_TOKEN = re.compile(r"<[^<>]*>|&[#a-zA-Z0-9]{1,10};|[\ud800-\udbff][\udc00-\udfff]|.", re.DOTALL)
_TAG = re.compile(r"<\s*(/)?\s*([a-zA-Z0-9-]+)[^>]*>")
_TAGS_KEPT_OPEN = {"b", "i", "u", "s", "code", "pre", "a", "tg-spoiler", "strong", "em", "ins", "del"}


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def split_html(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """Chunks of at most `limit` UTF-16 units; every chunk after the first starts with CONTINUED."""
    chunks: list[str] = []
    open_tags: list[tuple[str, str]] = []
    parts: list[str] = []
    length = 0
    for token in _TOKEN.findall(text):
        size = utf16_length(token) + _closing_cost(token)
        if parts and length + size + _closing_length(open_tags) > limit:
            chunks.append("".join(parts) + _closing(open_tags))
            parts = [CONTINUED, *(tag for _, tag in open_tags)]
            length = sum(utf16_length(p) for p in parts)
        parts.append(token)
        length += utf16_length(token)
        _track(token, open_tags)
    chunks.append("".join(parts) + _closing(open_tags))
    return chunks


def _closing(open_tags: list[tuple[str, str]]) -> str:
    return "".join(f"</{name}>" for name, _ in reversed(open_tags))


def _closing_length(open_tags: list[tuple[str, str]]) -> int:
    return sum(len(name) + 3 for name, _ in open_tags)


def _closing_cost(token: str) -> int:
    """An opening tag also commits the chunk to its closing tag."""
    match = _TAG.fullmatch(token)
    if match is None or match.group(1) or match.group(2).lower() not in _TAGS_KEPT_OPEN:
        return 0
    return len(match.group(2)) + 3


def _track(token: str, open_tags: list[tuple[str, str]]) -> None:
    match = _TAG.fullmatch(token)
    if match is None:
        return
    closing, name = match.group(1) is not None, match.group(2).lower()
    if name not in _TAGS_KEPT_OPEN:
        return
    if not closing:
        open_tags.append((name, token))
        return
    for index in range(len(open_tags) - 1, -1, -1):
        if open_tags[index][0] == name:
            del open_tags[index]
            return


def strip_tags(text: str) -> str:
    """The plain text of an HTML chunk Telegram refused to parse."""
    plain = re.sub(r"<[^<>]*>", "", text)
    return plain.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&")
