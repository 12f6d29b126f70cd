"""Telegram's HTML parse mode, after tdlib's parse_html: the same checks and the same error wordings.

Text and entities come out as Telegram derives them, offsets in UTF-16 code units.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from testkit.telegram.entities import utf16_len
from testkit.telegram.errors import cant_parse_entities

_TAG_ENTITY = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "u": "underline",
    "ins": "underline",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "tg-emoji": "custom_emoji",
    "pre": "pre",
    "code": "code",
    "blockquote": "blockquote",
}
_SUPPORTED_TAGS = frozenset(_TAG_ENTITY) | {"a"}  # <a href> is a text_link
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_HTML_ENTITY = re.compile(r"&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]{2,4}));")


def _decode_entity(text: str, at: int) -> tuple[str, int] | None:
    match = _HTML_ENTITY.match(text, at)
    if match is None:
        return None
    decimal, hexadecimal, name = match.groups()
    if name is not None:
        char = _NAMED_ENTITIES.get(name)
        return (char, match.end()) if char is not None else None
    code = int(decimal) if decimal is not None else int(hexadecimal, 16)
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return None
    return chr(code), match.end()


@dataclass(slots=True)
class _OpenTag:
    name: str
    attributes: dict[str, str]
    start: int
    """UTF-16 offset in the output text."""


class _HtmlParser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.out: list[str] = []
        self.length = 0
        self.open: list[_OpenTag] = []
        self.entities: list[dict[str, Any]] = []

    def parse(self) -> tuple[str, list[dict[str, Any]]]:
        text, i, n = self.source, 0, len(self.source)
        while i < n:
            char = text[i]
            if char == "&":
                decoded = _decode_entity(text, i)
                if decoded is not None:
                    self._emit(decoded[0])
                    i = decoded[1]
                    continue
            if char != "<":
                self._emit(char)
                i += 1
                continue
            closing = i + 1 < n and text[i + 1] == "/"
            i = self._end_tag(i) if closing else self._start_tag(i)
        if self.open:
            raise cant_parse_entities(
                f'Can\'t find end tag corresponding to start tag "{self.open[-1].name}"'
            )
        self.entities.sort(key=lambda e: (e["offset"], -e["length"]))
        return "".join(self.out), self.entities

    def _emit(self, chars: str) -> None:
        self.out.append(chars)
        self.length += utf16_len(chars)

    def _byte_offset(self, at: int) -> int:
        return len(self.source[:at].encode())

    def _start_tag(self, begin: int) -> int:
        text, n = self.source, len(self.source)
        offset = self._byte_offset(begin)
        i = begin + 1
        while i < n and not text[i].isspace() and text[i] != ">":
            i += 1
        if i >= n:
            raise cant_parse_entities(f"Unclosed start tag at byte offset {offset}")
        name = text[begin + 1 : i].lower()
        if name not in _SUPPORTED_TAGS:
            raise cant_parse_entities(f'Unsupported start tag "{name}" at byte offset {offset}')
        attributes: dict[str, str] = {}
        while True:
            while i < n and text[i].isspace():
                i += 1
            if i >= n:
                raise cant_parse_entities(f"Unclosed start tag at byte offset {offset}")
            if text[i] == ">":
                break
            i = self._attribute(i, name, offset, attributes)
        if name == "span" and attributes.get("class") != "tg-spoiler":
            raise cant_parse_entities(f'Tag "span" must have class "tg-spoiler" at byte offset {offset}')
        self.open.append(_OpenTag(name, attributes, self.length))
        return i + 1

    def _attribute(self, i: int, tag: str, offset: int, attributes: dict[str, str]) -> int:
        text, n = self.source, len(self.source)
        start = i
        while i < n and not text[i].isspace() and text[i] not in "=>":
            i += 1
        name = text[start:i].lower()
        if not name:
            raise cant_parse_entities(f'Empty attribute name in the tag "{tag}" at byte offset {offset}')
        while i < n and text[i].isspace():
            i += 1
        if i >= n or text[i] != "=":
            if tag == "blockquote" and name == "expandable":
                attributes[name] = ""
                return i
            raise cant_parse_entities(
                "Expected equal sign in declaration of an attribute of the tag "
                f'"{tag}" at byte offset {offset}'
            )
        i += 1
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            raise cant_parse_entities(f"Unclosed start tag at byte offset {offset}")
        if text[i] in "'\"":
            quote = text[i]
            end = text.find(quote, i + 1)
            if end < 0:
                raise cant_parse_entities(f"Unclosed start tag at byte offset {offset}")
            raw, i = text[i + 1 : end], end + 1
        else:
            start = i
            while i < n and (text[i].isalnum() or text[i] in ".-"):
                i += 1
            raw = text[start:i]
        attributes[name] = _decode_all_entities(raw)
        return i

    def _end_tag(self, begin: int) -> int:
        text, n = self.source, len(self.source)
        offset = self._byte_offset(begin)
        if not self.open:
            raise cant_parse_entities(f"Unexpected end tag at byte offset {offset}")
        i = begin + 2
        while i < n and not text[i].isspace() and text[i] != ">":
            i += 1
        end_name = text[begin + 2 : i].lower()
        while i < n and text[i].isspace():
            i += 1
        if i >= n or text[i] != ">":
            raise cant_parse_entities(f"Unclosed end tag at byte offset {offset}")
        tag = self.open.pop()
        if end_name and end_name != tag.name:
            raise cant_parse_entities(
                f'Unmatched end tag at byte offset {offset}, expected "</{tag.name}>", found "</{end_name}>"'
            )
        self._close(tag)
        return i + 1

    def _close(self, tag: _OpenTag) -> None:
        length = self.length - tag.start
        if length <= 0:
            return
        entity: dict[str, Any] = {"type": _TAG_ENTITY.get(tag.name, "text_link"), "offset": tag.start}
        entity["length"] = length
        if tag.name == "a":
            href = tag.attributes.get("href", "")
            if not href:
                return
            entity["url"] = href
        elif tag.name == "blockquote" and "expandable" in tag.attributes:
            entity["type"] = "expandable_blockquote"
        elif tag.name == "tg-emoji":
            entity["custom_emoji_id"] = tag.attributes.get("emoji-id", "")
        elif tag.name == "code" and self.open and self.open[-1].name == "pre":
            language = tag.attributes.get("class", "").removeprefix("language-")
            if language:
                self.open[-1].attributes["language"] = language
            return
        elif tag.name == "pre" and tag.attributes.get("language"):
            entity["language"] = tag.attributes["language"]
        self.entities.append(entity)


def _decode_all_entities(raw: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(raw):
        decoded = _decode_entity(raw, i) if raw[i] == "&" else None
        if decoded is None:
            out.append(raw[i])
            i += 1
        else:
            out.append(decoded[0])
            i = decoded[1]
    return "".join(out)


def parse_html(source: str) -> tuple[str, list[dict[str, Any]]]:
    """Text and entities as Telegram derives them; ApiError "can't parse entities: …" when invalid."""
    return _HtmlParser(source).parse()
