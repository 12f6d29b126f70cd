"""The entities Telegram attaches by itself to a plain text: links and bot commands."""

from __future__ import annotations

import re
from typing import Any


def utf16_len(text: str) -> int:
    """Entity offsets and lengths count UTF-16 code units, as in the Bot API."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


_TLDS = (
    "com|org|net|io|ru|de|uk|tv|be|it|me|co|app|dev|info|edu|gov|fr|jp|us|ly|gl|gg|so|to|ai|xyz|"
    "site|online|news|video|nl|es|pl|ca|au|in|br|cn|ch|se|no|fi|dk|at|cz|eu|ua|kz|by|link|live|"
    "social|media|club|fm|am|cc|ws|im|is|sh|tk|ml|ga|cf|vc|la|nz|za|mx|ar|kr|tw|hk|sg|id|tr|ir|"
    "example|test|localhost|invalid|local"
)
_HOST = rf"(?:[a-z0-9](?:[a-z0-9-]{{0,61}}[a-z0-9])?\.)+(?:{_TLDS})|\d{{1,3}}(?:\.\d{{1,3}}){{3}}"
_URL_PATTERN = re.compile(
    rf"""(?<![\w@./:-])
    (?:
        (?:https?|ftp)://[^\s<>"'`]+
      | (?:{_HOST})(?::\d{{1,5}})?(?:[/?#][^\s<>"'`]*)?(?![\w@-])
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_SCHEME_HOST = re.compile(rf"^(?:https?|ftp)://(?:[^/?#@\s]*@)?(?:{_HOST})(?::\d{{1,5}})?(?:[/?#]|$)", re.I)
_COMMAND_PATTERN = re.compile(r"(?<![^\s])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w/])")
_TRAILING_PUNCTUATION = ".,:;!?'\""


def _trim_url(url: str) -> str:
    """Trailing punctuation ends the sentence, not the link; a closing bracket the link opened stays."""
    while url and url[-1] in _TRAILING_PUNCTUATION + ")]}":
        closing = url[-1]
        if closing in ")]}":
            opening = {")": "(", "]": "[", "}": "{"}[closing]
            if url.count(opening) >= url.count(closing):
                break
        url = url[:-1]
    return url


def find_entities(text: str) -> list[dict[str, Any]]:
    """The `url` and `bot_command` entities Telegram would attach to a plain text (UTF-16 offsets)."""
    spans: list[tuple[int, int, str]] = []
    for match in _URL_PATTERN.finditer(text):
        url = _trim_url(match.group())
        if "://" in url and not _SCHEME_HOST.match(url):
            continue
        if url:
            spans.append((match.start(), match.start() + len(url), "url"))
    for match in _COMMAND_PATTERN.finditer(text):
        if not any(start <= match.start() < end for start, end, _ in spans):
            spans.append((match.start(), match.end(), "bot_command"))
    spans.sort()
    return [
        {"type": kind, "offset": utf16_len(text[:start]), "length": utf16_len(text[start:end])}
        for start, end, kind in spans
    ]
