"""A fake Telegram Bot API server on 127.0.0.1 for the e2e tests and the offline demo.

The bot under test is pointed at `base_url` and talks HTTP to it exactly as to api.telegram.org:
`POST|GET {base}/bot{token}/{method}` with JSON, form-urlencoded or multipart bodies. The fake keeps
chats, messages, files and updates in memory, answers with real-looking objects and, where the
real API refuses a call, refuses it with the real `error_code` and wording — so the bot's error
handling is exercised against what Telegram actually says.

Test side (all helpers that produce updates are synchronous: several calls without an `await`
between them arrive in one getUpdates batch):

    async with FakeBotApi() as api:
        alice = User(1337, "Alice")
        api.send_text(Chat.private(alice), alice, "look https://example.com/v")
        await api.wait_for(lambda: api.videos(alice.id))

Faults: `fail_next(method, code=429, retry_after=1, times=2)`; a "user" deleting a message:
`delete_message(chat_id, message_id)`; a blocked chat: `block_chat(chat_id)`; an expired file_id:
`forget_file(file_id)`. Every call is recorded (`calls`), with query helpers for messages and their
edit history, videos, reactions, callback and inline answers and media edits.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import hashlib
import itertools
import json
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

from aiohttp import BodyPartReader, web

from testkit.loopback import LoopbackServer

DEFAULT_TOKEN = "123456789:AAFakeTokenForTheVidrelayTestsOnly0000"  # noqa: S105 - a fake's token
CLOUD_UPLOAD_LIMIT = 50 * 1024 * 1024
LOCAL_UPLOAD_LIMIT = 2000 * 1024 * 1024
MAX_MESSAGE_LENGTH = 4096
MAX_CAPTION_LENGTH = 1024
MAX_CALLBACK_DATA_BYTES = 64
_MAX_POLL_SECONDS = 50.0
_MAX_WAIT_SECONDS = 120.0

NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
WRONG_FILE_ID = "Bad Request: wrong file identifier/HTTP URL specified"
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"

# fmt: off
ALLOWED_REACTIONS = frozenset(
    (
        "❤", "👍", "👎", "🔥", "🥰", "👏", "😁", "🤔", "🤯", "😱", "🤬", "😢", "🎉", "🤩",
        "🤮", "💩", "🙏", "👌", "🕊", "🤡", "🥱", "🥴", "😍", "🐳", "❤\u200d🔥", "🌚", "🌭", "💯",
        "🤣", "⚡", "🍌", "🏆", "💔", "🤨", "😐", "🍓", "🍾", "💋", "🖕", "😈", "😴", "😭",
        "🤓", "👻", "👨\u200d💻", "👀", "🎃", "🙈", "😇", "😨", "🤝", "✍", "🤗", "🫡", "🎅", "🎄",
        "☃", "💅", "🤪", "🗿", "🆒", "💘", "🙉", "🦄", "😘", "💊", "🙊", "😎", "👾", "🤷\u200d♂",
        "🤷", "🤷\u200d♀", "😡",
    )
)
# fmt: on

_DEFAULT_DESCRIPTIONS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden: bot was blocked by the user",
    404: "Not Found",
    409: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
    413: "Request Entity Too Large",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}

T = TypeVar("T")


# --------------------------------------------------------------------------------------------------
# People and places


@dataclass(frozen=True, slots=True)
class User:
    id: int
    first_name: str = "Test"
    username: str | None = None
    last_name: str | None = None
    is_bot: bool = False
    language_code: str | None = "en"

    def to_api(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code and not self.is_bot:
            data["language_code"] = self.language_code
        return data


@dataclass(frozen=True, slots=True)
class Chat:
    """A private chat has the user's id; groups have negative ids, supergroups -100…."""

    id: int
    type: str
    title: str | None = None
    username: str | None = None
    first_name: str | None = None

    @classmethod
    def private(cls, user: User) -> Chat:
        return cls(user.id, "private", username=user.username, first_name=user.first_name)

    @classmethod
    def group(cls, chat_id: int, title: str = "Test group") -> Chat:
        if chat_id >= 0:
            raise ValueError("group chat ids are negative")
        return cls(chat_id, "group", title=title)

    @classmethod
    def supergroup(cls, chat_id: int, title: str = "Test supergroup") -> Chat:
        if not str(chat_id).startswith("-100"):
            raise ValueError("supergroup chat ids start with -100")
        return cls(chat_id, "supergroup", title=title)

    @property
    def is_group(self) -> bool:
        return self.type in {"group", "supergroup"}

    def to_api(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        if self.title is not None:
            data["title"] = self.title
        if self.username is not None:
            data["username"] = self.username
        if self.first_name is not None:
            data["first_name"] = self.first_name
        return data


# --------------------------------------------------------------------------------------------------
# What the fake remembers


@dataclass(frozen=True, slots=True)
class FileRecord:
    file_id: str
    file_unique_id: str
    sha256: str
    size: int
    duration: int = 0
    width: int = 0
    height: int = 0


@dataclass(frozen=True, slots=True)
class Version:
    """One state of a message: what it showed, and when it started showing it (monotonic)."""

    text: str | None
    entities: tuple[dict[str, Any], ...]
    reply_markup: dict[str, Any] | None
    at: float
    source: str | None = None
    """What the bot sent, markup included (the HTML before parsing)."""


@dataclass(slots=True)
class StoredMessage:
    chat_id: int
    message_id: int
    from_bot: bool
    sender: User
    date: int
    text: str | None = None
    entities: list[dict[str, Any]] = field(default_factory=list)
    caption: str | None = None
    caption_entities: list[dict[str, Any]] = field(default_factory=list)
    video: FileRecord | None = None
    reply_to: int | None = None
    reply_markup: dict[str, Any] | None = None
    silent: bool = False
    link_preview_disabled: bool = False
    parse_mode: str | None = None
    deleted: bool = False
    deleted_by_bot: bool = False
    edit_date: int | None = None
    history: list[Version] = field(default_factory=list)
    """Every version, the first one included: history[-1] is what the chat shows now."""

    @property
    def texts(self) -> list[str | None]:
        """The message's text after the send and after each edit, in order."""
        return [v.text for v in self.history]

    @property
    def sources(self) -> list[str | None]:
        """The same, as the bot sent them (HTML markup included)."""
        return [v.source for v in self.history]

    @property
    def edits(self) -> int:
        return len(self.history) - 1


@dataclass(frozen=True, slots=True)
class CallRecord:
    method: str
    params: dict[str, Any]
    """As received: JSON values, or strings for form bodies (JSON fields still encoded)."""
    at: float
    """time.monotonic() when the request arrived."""
    chat_id: int | None
    files: dict[str, str]
    """Uploaded or path-read files: field name → sha256."""
    ok: bool = True
    error_code: int | None = None
    description: str | None = None
    result: Any = None


@dataclass(frozen=True, slots=True)
class VideoRecord:
    chat_id: int
    message_id: int
    sha256: str
    size: int
    file_id: str
    file_unique_id: str
    source: str
    """"upload" (multipart bytes), "path" (local mode file://), or "file_id" (reused)."""
    reply_to: int | None
    caption: str | None
    duration: int
    width: int
    height: int
    supports_streaming: bool
    silent: bool
    reply_markup: dict[str, Any] | None
    at: float

    @property
    def uploaded(self) -> bool:
        return self.source != "file_id"


@dataclass(frozen=True, slots=True)
class ReactionRecord:
    chat_id: int
    message_id: int
    emojis: tuple[str, ...]
    at: float


@dataclass(frozen=True, slots=True)
class CallbackAnswer:
    callback_query_id: str
    text: str | None
    show_alert: bool
    at: float


@dataclass(frozen=True, slots=True)
class InlineAnswer:
    inline_query_id: str
    results: list[dict[str, Any]]
    cache_time: int | None
    is_personal: bool
    at: float


@dataclass(frozen=True, slots=True)
class MediaEdit:
    inline_message_id: str | None
    chat_id: int | None
    message_id: int | None
    media: dict[str, Any]
    file: FileRecord
    reply_markup: dict[str, Any] | None
    at: float


@dataclass(slots=True)
class _Fault:
    method: str
    code: int
    description: str
    retry_after: int | None
    chat_id: int | None
    remaining: int


@dataclass(slots=True)
class _Upload:
    sha256: str
    size: int
    filename: str | None
    too_large: bool


class ApiError(Exception):
    """A refusal, answered as `{"ok": false, "error_code": …, "description": …}`."""

    def __init__(
        self,
        code: int,
        description: str,
        *,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
    ) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.retry_after = retry_after
        self.migrate_to_chat_id = migrate_to_chat_id

    def to_api(self) -> dict[str, Any]:
        body: dict[str, Any] = {"ok": False, "error_code": self.code, "description": self.description}
        parameters: dict[str, int] = {}
        if self.retry_after is not None:
            parameters["retry_after"] = self.retry_after
        if self.migrate_to_chat_id is not None:
            parameters["migrate_to_chat_id"] = self.migrate_to_chat_id
        if parameters:
            body["parameters"] = parameters
        return body


def bad_request(what: str) -> ApiError:
    return ApiError(400, f"Bad Request: {what}")


# --------------------------------------------------------------------------------------------------
# Text: Telegram's HTML parse mode and its automatic entities


_SUPPORTED_TAGS = frozenset(
    {
        "a",
        "b",
        "strong",
        "i",
        "em",
        "s",
        "strike",
        "del",
        "u",
        "ins",
        "tg-spoiler",
        "tg-emoji",
        "span",
        "pre",
        "code",
        "blockquote",
    }
)
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
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_HTML_ENTITY = re.compile(r"&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]{2,4}));")


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


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
    """Telegram's HTML parse mode (tdlib's parse_html): the same checks, the same error wordings."""

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
            raise self._error(f'Can\'t find end tag corresponding to start tag "{self.open[-1].name}"')
        self.entities.sort(key=lambda e: (e["offset"], -e["length"]))
        return "".join(self.out), self.entities

    def _emit(self, chars: str) -> None:
        self.out.append(chars)
        self.length += utf16_len(chars)

    def _byte_offset(self, at: int) -> int:
        return len(self.source[:at].encode())

    @staticmethod
    def _error(what: str) -> ApiError:
        return bad_request(f"can't parse entities: {what}")

    def _start_tag(self, begin: int) -> int:
        text, n = self.source, len(self.source)
        offset = self._byte_offset(begin)
        i = begin + 1
        while i < n and not text[i].isspace() and text[i] != ">":
            i += 1
        if i >= n:
            raise self._error(f"Unclosed start tag at byte offset {offset}")
        name = text[begin + 1 : i].lower()
        if name not in _SUPPORTED_TAGS:
            raise self._error(f'Unsupported start tag "{name}" at byte offset {offset}')
        attributes: dict[str, str] = {}
        while True:
            while i < n and text[i].isspace():
                i += 1
            if i >= n:
                raise self._error(f"Unclosed start tag at byte offset {offset}")
            if text[i] == ">":
                break
            i = self._attribute(i, name, offset, attributes)
        if name == "span" and attributes.get("class") != "tg-spoiler":
            raise self._error(f'Tag "span" must have class "tg-spoiler" at byte offset {offset}')
        self.open.append(_OpenTag(name, attributes, self.length))
        return i + 1

    def _attribute(self, i: int, tag: str, offset: int, attributes: dict[str, str]) -> int:
        text, n = self.source, len(self.source)
        start = i
        while i < n and not text[i].isspace() and text[i] not in "=>":
            i += 1
        name = text[start:i].lower()
        if not name:
            raise self._error(f'Empty attribute name in the tag "{tag}" at byte offset {offset}')
        while i < n and text[i].isspace():
            i += 1
        if i >= n or text[i] != "=":
            if tag == "blockquote" and name == "expandable":
                attributes[name] = ""
                return i
            raise self._error(
                "Expected equal sign in declaration of an attribute of the tag "
                f'"{tag}" at byte offset {offset}'
            )
        i += 1
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            raise self._error(f"Unclosed start tag at byte offset {offset}")
        if text[i] in "'\"":
            quote = text[i]
            end = text.find(quote, i + 1)
            if end < 0:
                raise self._error(f"Unclosed start tag at byte offset {offset}")
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
            raise self._error(f"Unexpected end tag at byte offset {offset}")
        i = begin + 2
        while i < n and not text[i].isspace() and text[i] != ">":
            i += 1
        end_name = text[begin + 2 : i].lower()
        while i < n and text[i].isspace():
            i += 1
        if i >= n or text[i] != ">":
            raise self._error(f"Unclosed end tag at byte offset {offset}")
        tag = self.open.pop()
        if end_name and end_name != tag.name:
            raise self._error(
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


# --------------------------------------------------------------------------------------------------
# Request parameters


class _Params:
    """Typed access to one call's parameters, whatever the body encoding was."""

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
        value = self.raw.get(key)
        if not isinstance(value, str):
            return value
        if value == "":
            return None
        try:
            return json.loads(value)
        except ValueError:
            raise bad_request(f"can't parse {what or key} JSON object") from None


# --------------------------------------------------------------------------------------------------
# The server


@dataclass(slots=True)
class _Call:
    method: str
    params: _Params
    uploads: dict[str, _Upload]
    files: dict[str, str] = field(default_factory=dict)


Handler = Callable[[_Call], Awaitable[Any]]


@dataclass(slots=True)
class _InlineMessage:
    inline_message_id: str
    user: User
    result_id: str
    query: str
    reply_markup: dict[str, Any] | None = None
    media: FileRecord | None = None


class FakeBotApi(LoopbackServer):
    """`async with FakeBotApi() as api:` — or `await start()` / `await stop()`."""

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_username: str = "vidrelay_test_bot",
        bot_name: str = "vidrelay",
        local_mode: bool = False,
        upload_limit: int | None = None,
    ) -> None:
        self.token = token
        self.bot = User(int(token.split(":", 1)[0]), bot_name, username=bot_username, is_bot=True)
        self.local_mode = local_mode
        self.upload_limit = upload_limit or (LOCAL_UPLOAD_LIMIT if local_mode else CLOUD_UPLOAD_LIMIT)
        super().__init__()
        self._tick = asyncio.Event()
        self._handlers: dict[str, tuple[str, Handler]] = {}
        self._register_methods()
        self.reset()

    # ---- lifecycle

    def _application(self) -> web.Application:
        app = web.Application(client_max_size=16 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_route("*", "/{tail:.*}", self._not_found)
        return app

    async def stop(self) -> None:
        self._notify()  # long polls waiting on the fake give up now
        await super().stop()

    @property
    def base_url(self) -> str:
        """What VIDRELAY_TELEGRAM_API_URL should be: requests go to {base_url}/bot{token}/{method}."""
        return super().base_url

    def reset(self) -> None:
        """Forget every chat, message, file, update, fault and record."""
        self._chats: dict[int, Chat] = {}
        self._blocked: set[int] = set()
        self._migrated: dict[int, int] = {}
        self._messages: dict[int, dict[int, StoredMessage]] = {}
        self._next_message_id: dict[int, itertools.count[int]] = {}
        self._files: dict[str, FileRecord] = {}
        self._forgotten: set[str] = set()
        self._updates: list[dict[str, Any]] = []
        self._next_update_id = itertools.count(1)
        self._allowed_updates: frozenset[str] | None = None
        self._poll_generation = 0
        self._pollers = 0
        self._pending_callbacks: dict[str, User] = {}
        self._pending_inline: dict[str, User] = {}
        self._inline_messages: dict[str, _InlineMessage] = {}
        self._faults: list[_Fault] = []
        self._calls: list[CallRecord] = []
        self._videos: list[VideoRecord] = []
        self._reactions: list[ReactionRecord] = []
        self._callback_answers: list[CallbackAnswer] = []
        self._inline_answers: list[InlineAnswer] = []
        self._media_edits: list[MediaEdit] = []
        self._chat_actions: list[tuple[int, str]] = []
        self.webhook: dict[str, Any] | None = None
        self._notify()

    # ---- test controls

    def add_chat(self, chat: Chat) -> Chat:
        """Make a chat known (the bot can write to it). Chats of helper-made updates are added anyway."""
        self._chats[chat.id] = chat
        self._messages.setdefault(chat.id, {})
        self._next_message_id.setdefault(chat.id, itertools.count(1))
        return chat

    def chat(self, chat_id: int) -> Chat:
        return self._chats[chat_id]

    def block_chat(self, chat_id: int) -> None:
        """The user blocked the bot (private) or kicked it (groups): every call to the chat is 403."""
        self._blocked.add(chat_id)

    def unblock_chat(self, chat_id: int) -> None:
        self._blocked.discard(chat_id)

    def fail_next(
        self,
        method: str,
        *,
        code: int = 429,
        retry_after: int | None = None,
        description: str | None = None,
        times: int = 1,
        chat_id: int | None = None,
    ) -> None:
        """Answer the next `times` calls of `method` (to `chat_id`, if given) with this error instead.

        429 defaults to retry_after=1 and Telegram's "Too Many Requests: retry after N".
        """
        if code == 429 and retry_after is None:
            retry_after = 1
        if description is None:
            if code == 429:
                description = f"Too Many Requests: retry after {retry_after}"
            else:
                description = _DEFAULT_DESCRIPTIONS.get(code, "Internal Server Error")
        self._faults.append(_Fault(method.lower(), code, description, retry_after, chat_id, times))

    def delete_message(self, chat_id: int, message_id: int) -> None:
        """A user (or an admin) deletes a message: later edits and replies to it fail like on Telegram."""
        message = self._messages.get(chat_id, {}).get(message_id)
        if message is None:
            raise KeyError(f"no message {message_id} in chat {chat_id}")
        message.deleted = True
        self._notify()

    def forget_file(self, file_id: str) -> None:
        """Telegram no longer accepts this file_id ("wrong file identifier")."""
        self._forgotten.add(file_id)

    def file(self, file_id: str) -> FileRecord | None:
        return None if file_id in self._forgotten else self._files.get(file_id)

    # ---- updates, as Telegram would produce them

    def send_text(
        self,
        chat: Chat,
        user: User,
        text: str,
        *,
        entities: list[dict[str, Any]] | None = None,
        reply_to: int | None = None,
    ) -> int:
        """A user writes `text`; returns the message id. Entities are computed like Telegram does
        unless given (malformed ones included: they are passed through untouched)."""
        self.add_chat(chat)
        message = self._store(chat.id, user, from_bot=False, text=text, reply_to=reply_to)
        message.entities = find_entities(text) if entities is None else list(entities)
        self._enqueue("message", self._message_json(message))
        return message.message_id

    def send_edited_text(
        self,
        chat: Chat,
        user: User,
        message_id: int,
        text: str,
        *,
        entities: list[dict[str, Any]] | None = None,
    ) -> None:
        message = self._messages.get(chat.id, {}).get(message_id)
        if message is None or message.from_bot:
            raise KeyError(f"no message {message_id} of a user in chat {chat.id}")
        message.text = text
        message.entities = find_entities(text) if entities is None else list(entities)
        message.edit_date = int(time.time())
        message.history.append(Version(text, tuple(message.entities), None, time.monotonic(), text))
        self._enqueue("edited_message", self._message_json(message))

    def press_button(self, chat: Chat, user: User, message_id: int, callback_data: str) -> str:
        """A user presses an inline button under a bot message; returns the callback query id."""
        query_id = str(secrets.randbits(63))
        message = self._messages.get(chat.id, {}).get(message_id)
        if message is not None and not message.deleted:
            shown: dict[str, Any] = self._message_json(message)
        else:
            shown = {"chat": chat.to_api(), "message_id": message_id, "date": 0}
        self._pending_callbacks[query_id] = user
        self._enqueue(
            "callback_query",
            {
                "id": query_id,
                "from": user.to_api(),
                "message": shown,
                "chat_instance": str(abs(hash((chat.id, self.bot.id)))),
                "data": callback_data,
            },
        )
        return query_id

    def send_inline_query(
        self, user: User, query: str, *, offset: str = "", chat_type: str | None = "sender"
    ) -> str:
        """A user types `@bot query`; returns the inline query id."""
        query_id = str(secrets.randbits(63))
        self._pending_inline[query_id] = user
        data: dict[str, Any] = {"id": query_id, "from": user.to_api(), "query": query, "offset": offset}
        if chat_type is not None:
            data["chat_type"] = chat_type
        self._enqueue("inline_query", data)
        return query_id

    def choose_inline_result(
        self, user: User, result_id: str, inline_message_id: str | None = None, query: str = ""
    ) -> str:
        """A user picks an inline result; returns the inline_message_id the bot can edit."""
        inline_id = inline_message_id or base64.urlsafe_b64encode(secrets.token_bytes(18)).decode()
        chosen = self._chosen_result(result_id)
        markup = chosen.get("reply_markup") if chosen else None
        self._inline_messages[inline_id] = _InlineMessage(inline_id, user, result_id, query, markup)
        self._enqueue(
            "chosen_inline_result",
            {"result_id": result_id, "from": user.to_api(), "query": query, "inline_message_id": inline_id},
        )
        return inline_id

    def migrate_group(self, old_chat_id: int, new_chat_id: int, *, by: User | None = None) -> Chat:
        """A group becomes a supergroup: service messages in both chats, and the old id stops working."""
        old = self._chats.get(old_chat_id) or self.add_chat(Chat.group(old_chat_id))
        new = self.add_chat(Chat.supergroup(new_chat_id, old.title or "Test supergroup"))
        actor = by or User(777000, "Telegram")
        note = self._store(old.id, actor, from_bot=False)
        old_json = self._message_json(note) | {"migrate_to_chat_id": new.id}
        self._migrated[old.id] = new.id
        note = self._store(new.id, actor, from_bot=False)
        new_json = self._message_json(note) | {"migrate_from_chat_id": old.id}
        self._enqueue("message", old_json)
        self._enqueue("message", new_json)
        return new

    @property
    def polling(self) -> bool:
        """A getUpdates long poll is waiting right now (an update sent now is handed out at once)."""
        return self._pollers > 0

    @property
    def pending_updates(self) -> int:
        """Updates not yet confirmed by the bot (getUpdates with a higher offset)."""
        return len(self._updates)

    # ---- queries

    @property
    def calls(self) -> list[CallRecord]:
        return list(self._calls)

    def calls_of(self, method: str) -> list[CallRecord]:
        return [c for c in self._calls if c.method.lower() == method.lower()]

    def messages(
        self, chat_id: int, *, from_bot: bool | None = True, include_deleted: bool = False
    ) -> list[StoredMessage]:
        """Messages in a chat in order: the bot's by default, `from_bot=None` for everyone's."""
        return [
            m
            for m in self._messages.get(chat_id, {}).values()
            if (from_bot is None or m.from_bot == from_bot) and (include_deleted or not m.deleted)
        ]

    def message(self, chat_id: int, message_id: int) -> StoredMessage | None:
        return self._messages.get(chat_id, {}).get(message_id)

    def videos(self, chat_id: int | None = None) -> list[VideoRecord]:
        return [v for v in self._videos if chat_id is None or v.chat_id == chat_id]

    def reactions(self, chat_id: int | None = None) -> list[ReactionRecord]:
        return [r for r in self._reactions if chat_id is None or r.chat_id == chat_id]

    @property
    def callback_answers(self) -> list[CallbackAnswer]:
        return list(self._callback_answers)

    def callback_answer(self, callback_query_id: str) -> CallbackAnswer | None:
        return next((a for a in self._callback_answers if a.callback_query_id == callback_query_id), None)

    @property
    def inline_answers(self) -> list[InlineAnswer]:
        return list(self._inline_answers)

    def inline_answer(self, inline_query_id: str) -> InlineAnswer | None:
        return next((a for a in self._inline_answers if a.inline_query_id == inline_query_id), None)

    @property
    def media_edits(self) -> list[MediaEdit]:
        return list(self._media_edits)

    @property
    def chat_actions(self) -> list[tuple[int, str]]:
        return list(self._chat_actions)

    async def wait_for(self, predicate: Callable[[], T], timeout: float = 10.0) -> T:
        """Wait until `predicate()` is truthy (re-checked after every call and update); return it.

        TimeoutError after `timeout` seconds, naming the last calls to help the failing test.
        """
        deadline = asyncio.get_running_loop().time() + min(timeout, _MAX_WAIT_SECONDS)
        while True:
            tick = self._tick
            value = predicate()
            if value:
                return value
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                recent = ", ".join(
                    f"{c.method}{'' if c.ok else f' ({c.error_code})'}" for c in self._calls[-10:]
                )
                raise TimeoutError(f"condition not met within {timeout} s; last calls: {recent or 'none'}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(tick.wait(), remaining)

    # ---- internals: state

    def _notify(self) -> None:
        self._tick.set()
        self._tick = asyncio.Event()

    def _store(
        self,
        chat_id: int,
        sender: User,
        *,
        from_bot: bool,
        text: str | None = None,
        entities: list[dict[str, Any]] | None = None,
        reply_to: int | None = None,
        reply_markup: dict[str, Any] | None = None,
        source: str | None = None,
    ) -> StoredMessage:
        message_id = next(self._next_message_id.setdefault(chat_id, itertools.count(1)))
        message = StoredMessage(
            chat_id=chat_id,
            message_id=message_id,
            from_bot=from_bot,
            sender=sender,
            date=int(time.time()),
            text=text,
            entities=list(entities or []),
            reply_to=reply_to,
            reply_markup=reply_markup,
        )
        message.history.append(
            Version(
                text, tuple(message.entities), reply_markup, time.monotonic(), source if from_bot else text
            )
        )
        self._messages.setdefault(chat_id, {})[message_id] = message
        return message

    def _enqueue(self, kind: str, payload: dict[str, Any]) -> None:
        self._updates.append({"update_id": next(self._next_update_id), kind: payload})
        self._notify()

    def _chosen_result(self, result_id: str) -> dict[str, Any] | None:
        for answer in reversed(self._inline_answers):
            for result in answer.results:
                if str(result.get("id")) == result_id:
                    return result
        return None

    def _message_json(self, message: StoredMessage, *, nested: bool = False) -> dict[str, Any]:
        chat = self._chats[message.chat_id]
        data: dict[str, Any] = {
            "message_id": message.message_id,
            "from": message.sender.to_api(),
            "chat": chat.to_api(),
            "date": message.date,
        }
        if message.edit_date is not None:
            data["edit_date"] = message.edit_date
        if message.reply_to is not None and not nested:
            replied = self._messages.get(message.chat_id, {}).get(message.reply_to)
            if replied is not None and not replied.deleted:
                data["reply_to_message"] = self._message_json(replied, nested=True)
        if message.text is not None:
            data["text"] = message.text
            if message.entities:
                data["entities"] = message.entities
        if message.video is not None:
            data["video"] = _video_json(message.video)
        if message.caption is not None:
            data["caption"] = message.caption
            if message.caption_entities:
                data["caption_entities"] = message.caption_entities
        if message.reply_markup is not None:
            data["reply_markup"] = message.reply_markup
        if message.link_preview_disabled and message.text is not None:
            data["link_preview_options"] = {"is_disabled": True}
        return data

    # ---- internals: HTTP

    async def _not_found(self, request: web.Request) -> web.Response:
        return web.json_response(ApiError(404, "Not Found").to_api(), status=404)

    async def _handle(self, request: web.Request) -> web.Response:
        asked = request.match_info["method"]
        name = self._handlers[asked.lower()][0] if asked.lower() in self._handlers else asked
        at = time.monotonic()
        uploads: dict[str, _Upload] = {}
        raw: dict[str, Any] = {}
        chat_id: int | None = None
        call: _Call | None = None
        try:
            raw, uploads = await self._read_params(request)
            params = _Params(raw)
            with contextlib.suppress(ApiError):
                chat_id = params.integer("chat_id")
            canonical, handler = self._route(request.match_info["token"], name, chat_id)
            call = _Call(canonical, params, uploads)
            result = await handler(call)
        except ApiError as error:
            files = call.files if call is not None else {}
            self._record(CallRecord(name, raw, at, chat_id, files, False, error.code, error.description))
            return web.json_response(error.to_api(), status=error.code)
        self._record(CallRecord(name, raw, at, chat_id, call.files, result=result))
        return web.json_response({"ok": True, "result": result})

    def _route(self, token: str, method: str, chat_id: int | None) -> tuple[str, Handler]:
        if token != self.token:
            raise ApiError(401, "Unauthorized")
        self._raise_fault(method, chat_id)
        found = self._handlers.get(method.lower())
        if found is None:
            raise ApiError(404, "Not Found")
        return found

    def _record(self, record: CallRecord) -> None:
        self._calls.append(record)
        self._notify()

    def _raise_fault(self, method: str, chat_id: int | None) -> None:
        for fault in self._faults:
            if fault.method != method.lower() or fault.remaining <= 0:
                continue
            if fault.chat_id is not None and fault.chat_id != chat_id:
                continue
            fault.remaining -= 1
            self._faults = [f for f in self._faults if f.remaining > 0]
            raise ApiError(fault.code, fault.description, retry_after=fault.retry_after)

    async def _read_params(self, request: web.Request) -> tuple[dict[str, Any], dict[str, _Upload]]:
        raw: dict[str, Any] = dict(request.query)
        uploads: dict[str, _Upload] = {}
        if request.method not in {"POST", "PUT"} or not request.can_read_body:
            return raw, uploads
        content_type = request.content_type
        if content_type == "application/json":
            try:
                body = await request.json()
            except ValueError:
                raise bad_request("can't parse JSON object") from None
            if isinstance(body, dict):
                raw.update(body)
        elif content_type == "multipart/form-data":
            too_large = await self._read_multipart(request, raw, uploads)
            if too_large:
                raise ApiError(413, "Request Entity Too Large")
        elif content_type == "application/x-www-form-urlencoded":
            form = await request.post()
            raw.update({k: v for k, v in form.items() if isinstance(v, str)})
        return raw, uploads

    async def _read_multipart(
        self, request: web.Request, raw: dict[str, Any], uploads: dict[str, _Upload]
    ) -> bool:
        reader = await request.multipart()
        total = 0
        while (part := await reader.next()) is not None:
            if not isinstance(part, BodyPartReader) or part.name is None:
                continue
            if part.filename is None:
                raw[part.name] = (await part.read(decode=True)).decode("utf-8", errors="replace")
                continue
            digest, size = hashlib.sha256(), 0
            while chunk := await part.read_chunk(256 * 1024):
                size += len(chunk)
                total += len(chunk)
                if total <= self.upload_limit:
                    digest.update(chunk)
            uploads[part.name] = _Upload(digest.hexdigest(), size, part.filename, total > self.upload_limit)
        return total > self.upload_limit

    # ---- internals: chats and messages

    def _chat_for(self, params: _Params, key: str = "chat_id") -> Chat:
        value = params.raw.get(key)
        if value in (None, ""):
            raise bad_request("chat_id is empty")
        if isinstance(value, str) and value.startswith("@"):
            chat = next((c for c in self._chats.values() if c.username == value[1:]), None)
        else:
            try:
                chat = self._chats.get(int(value))
            except (TypeError, ValueError):
                chat = None
        if chat is None:
            raise bad_request("chat not found")
        if chat.id in self._migrated:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                migrate_to_chat_id=self._migrated[chat.id],
            )
        if chat.id in self._blocked:
            if chat.type == "private":
                raise ApiError(403, "Forbidden: bot was blocked by the user")
            raise ApiError(403, f"Forbidden: bot was kicked from the {chat.type} chat")
        return chat

    def _existing(self, chat: Chat, message_id: int | None, gone: str) -> StoredMessage:
        message = self._messages.get(chat.id, {}).get(message_id) if message_id is not None else None
        if message is None or message.deleted:
            raise bad_request(gone)
        return message

    def _reply_target(self, chat: Chat, params: _Params) -> int | None:
        reply = params.decoded("reply_parameters", "reply parameters")
        if isinstance(reply, dict) and reply.get("message_id") is not None:
            target, allow = reply["message_id"], bool(reply.get("allow_sending_without_reply"))
            if reply.get("chat_id") not in (None, chat.id, str(chat.id)):
                raise bad_request("message to be replied not found")
        else:
            target, allow = params.integer("reply_to_message_id"), params.flag("allow_sending_without_reply")
        if target is None:
            return None
        replied = self._messages.get(chat.id, {}).get(int(target))
        if replied is None or replied.deleted:
            if allow:
                return None
            raise bad_request("message to be replied not found")
        return int(target)

    def _formatted(
        self, params: _Params, text_key: str, entities_key: str
    ) -> tuple[str, list[dict[str, Any]]]:
        text = params.text(text_key) or ""
        mode = (params.text("parse_mode") or "").lower()
        if mode == "html":
            return parse_html(text)
        if mode in {"markdown", "markdownv2"}:
            return text, []  # Markdown is not used by vidrelay: taken as plain text
        entities = params.decoded(entities_key, "entities")
        return text, list(entities) if isinstance(entities, list) else []

    def _message_text(self, params: _Params) -> tuple[str, list[dict[str, Any]]]:
        text, entities = self._formatted(params, "text", "entities")
        if not text.strip():
            raise bad_request("message text is empty")
        if len(text) > MAX_MESSAGE_LENGTH:
            raise bad_request("message is too long")
        return text, entities

    def _markup(self, params: _Params) -> dict[str, Any] | None:
        markup = params.decoded("reply_markup", "reply keyboard markup")
        if markup is None:
            return None
        if not isinstance(markup, dict):
            raise bad_request("can't parse reply keyboard markup JSON object")
        rows = markup.get("inline_keyboard")
        if rows is None:
            return markup
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise bad_request(
                'field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays'
            )
        for row in rows:
            for button in row:
                _check_button(button)
        return {"inline_keyboard": [[dict(b) for b in row] for row in rows]}

    # ---- internals: files

    async def _resolve_video(
        self, call: _Call, value: Any, params: _Params, field_name: str
    ) -> tuple[FileRecord, str]:
        if not isinstance(value, str) or not value:
            raise bad_request("there is no video in the request")
        if value.startswith("attach://"):
            upload = call.uploads.get(value.removeprefix("attach://"))
            if upload is None:
                raise bad_request("wrong file identifier/HTTP URL specified")
            return self._uploaded(call, upload, params, field_name), "upload"
        if self.local_mode and value.startswith(("file://", "/")):
            return await self._from_path(call, value, params, field_name), "path"
        if value.lower().startswith(("http://", "https://")):
            raise bad_request("failed to get HTTP URL content")
        record = self.file(value)
        if record is None:
            raise bad_request("wrong file identifier/HTTP URL specified")
        return record, "file_id"

    def _uploaded(self, call: _Call, upload: _Upload, params: _Params, field_name: str) -> FileRecord:
        if upload.size == 0:
            raise bad_request("file must be non-empty")
        call.files[field_name] = upload.sha256
        return self._file_record(upload.sha256, upload.size, params)

    async def _from_path(self, call: _Call, value: str, params: _Params, field_name: str) -> FileRecord:
        path = Path(unquote(urlsplit(value).path)) if value.startswith("file://") else Path(value)
        try:
            sha256, size = await asyncio.to_thread(_hash_file, path)
        except OSError:
            raise bad_request("file not found") from None
        if size == 0:
            raise bad_request("file must be non-empty")
        if size > self.upload_limit:
            raise bad_request("file is too big")
        call.files[field_name] = sha256
        return self._file_record(sha256, size, params)

    def _file_record(self, sha256: str, size: int, params: _Params) -> FileRecord:
        digest = bytes.fromhex(sha256)
        unique = "AgAD" + base64.urlsafe_b64encode(digest[:9]).decode()
        file_id = (
            "BAACAgIAAxkBAAI"
            + base64.urlsafe_b64encode(hashlib.sha256(b"file_id" + digest).digest()).decode()
        )
        file_id = file_id.rstrip("=")
        existing = self._files.get(file_id)
        if existing is not None:
            self._forgotten.discard(file_id)
            return existing
        record = FileRecord(
            file_id,
            unique,
            sha256,
            size,
            duration=params.integer("duration") or 0,
            width=params.integer("width") or 0,
            height=params.integer("height") or 0,
        )
        self._files[file_id] = record
        return record

    # ---- Bot API methods

    def _register_methods(self) -> None:
        methods: dict[str, Handler] = {
            "getMe": self._get_me,
            "logOut": self._ok,
            "close": self._ok,
            "deleteWebhook": self._delete_webhook,
            "setWebhook": self._set_webhook,
            "getWebhookInfo": self._get_webhook_info,
            "getUpdates": self._get_updates,
            "sendMessage": self._send_message,
            "editMessageText": self._edit_message_text,
            "deleteMessage": self._delete_message,
            "sendVideo": self._send_video,
            "setMessageReaction": self._set_message_reaction,
            "answerCallbackQuery": self._answer_callback_query,
            "answerInlineQuery": self._answer_inline_query,
            "editMessageMedia": self._edit_message_media,
            "editMessageReplyMarkup": self._edit_message_reply_markup,
            "sendChatAction": self._send_chat_action,
            "getChat": self._get_chat,
        }
        self._handlers = {name.lower(): (name, handler) for name, handler in methods.items()}

    async def _ok(self, call: _Call) -> Any:
        return True

    async def _get_me(self, call: _Call) -> Any:
        return self.bot.to_api() | {
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": True,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    async def _delete_webhook(self, call: _Call) -> Any:
        self.webhook = None
        if call.params.flag("drop_pending_updates"):
            self._updates.clear()
        return True

    async def _set_webhook(self, call: _Call) -> Any:
        url = call.params.text("url") or ""
        if not url:
            return await self._delete_webhook(call)
        if not url.startswith("https://") and not url.startswith("http://"):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        self.webhook = {"url": url, "secret_token": call.params.text("secret_token")}
        if call.params.flag("drop_pending_updates"):
            self._updates.clear()
        return True

    async def _get_webhook_info(self, call: _Call) -> Any:
        url = self.webhook["url"] if self.webhook else ""
        return {"url": url, "has_custom_certificate": False, "pending_update_count": len(self._updates)}

    async def _get_updates(self, call: _Call) -> Any:
        if self.webhook is not None:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        params = call.params
        self._confirm(params.integer("offset"))
        allowed = params.decoded("allowed_updates", "allowed updates")
        if isinstance(allowed, list) and allowed:
            self._allowed_updates = frozenset(str(kind) for kind in allowed)
        limit = max(1, min(params.integer("limit") or 100, 100))
        timeout = max(0.0, min(float(params.integer("timeout") or 0), _MAX_POLL_SECONDS))
        self._poll_generation += 1
        generation = self._poll_generation
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        self._pollers += 1
        self._notify()
        try:
            while True:
                tick = self._tick
                if generation != self._poll_generation:
                    raise ApiError(409, _DEFAULT_DESCRIPTIONS[409])
                ready = self._deliverable()[:limit]
                remaining = deadline - loop.time()
                if ready or remaining <= 0 or self._stopping.is_set():
                    return ready
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(tick.wait(), remaining)
        finally:
            self._pollers -= 1

    def _confirm(self, offset: int | None) -> None:
        if offset is None or offset == 0:
            return
        before = len(self._updates)
        if offset < 0:
            self._updates = self._updates[offset:]
        else:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        if len(self._updates) != before:
            self._notify()

    def _deliverable(self) -> list[dict[str, Any]]:
        allowed = _DEFAULT_ALLOWED if self._allowed_updates is None else self._allowed_updates
        self._updates = [
            u for u in self._updates if any(kind in allowed for kind in u if kind != "update_id")
        ]
        return list(self._updates)

    async def _send_message(self, call: _Call) -> Any:
        params = call.params
        chat = self._chat_for(params)
        text, entities = self._message_text(params)
        markup = self._markup(params)
        reply_to = self._reply_target(chat, params)
        message = self._store(
            chat.id,
            self.bot,
            from_bot=True,
            text=text,
            entities=entities,
            reply_to=reply_to,
            reply_markup=markup,
            source=params.text("text"),
        )
        self._apply_send_options(message, params)
        return self._message_json(message)

    def _apply_send_options(self, message: StoredMessage, params: _Params) -> None:
        message.silent = params.flag("disable_notification")
        message.parse_mode = params.text("parse_mode")
        preview = params.decoded("link_preview_options", "link preview options")
        message.link_preview_disabled = params.flag("disable_web_page_preview") or (
            isinstance(preview, dict) and bool(preview.get("is_disabled"))
        )

    def _target(self, params: _Params) -> tuple[Chat | None, _InlineMessage | None, StoredMessage | None]:
        inline_id = params.text("inline_message_id")
        if inline_id:
            inline = self._inline_messages.get(inline_id)
            if inline is None:
                raise bad_request("message to edit not found")
            return None, inline, None
        chat = self._chat_for(params)
        message = self._existing(chat, params.integer("message_id"), "message to edit not found")
        return chat, None, message

    async def _edit_message_text(self, call: _Call) -> Any:
        params = call.params
        _chat, inline, message = self._target(params)
        text, entities = self._message_text(params)
        markup = self._markup(params)
        if inline is not None:
            inline.reply_markup = markup
            return True
        assert message is not None
        if not message.from_bot:
            raise bad_request("message can't be edited")
        if message.text is None:
            raise bad_request("there is no text in the message to edit")
        if text == message.text and entities == message.entities and markup == message.reply_markup:
            raise bad_request(NOT_MODIFIED.removeprefix("Bad Request: "))
        message.text, message.entities, message.reply_markup = text, entities, markup
        message.edit_date = int(time.time())
        message.parse_mode = params.text("parse_mode")
        message.history.append(Version(text, tuple(entities), markup, time.monotonic(), params.text("text")))
        return self._message_json(message)

    async def _edit_message_reply_markup(self, call: _Call) -> Any:
        params = call.params
        _chat, inline, message = self._target(params)
        markup = self._markup(params)
        if inline is not None:
            if markup == inline.reply_markup:
                raise bad_request(NOT_MODIFIED.removeprefix("Bad Request: "))
            inline.reply_markup = markup
            return True
        assert message is not None
        if not message.from_bot:
            raise bad_request("message can't be edited")
        if markup == message.reply_markup:
            raise bad_request(NOT_MODIFIED.removeprefix("Bad Request: "))
        message.reply_markup = markup
        message.edit_date = int(time.time())
        previous = message.history[-1]
        message.history.append(dataclasses.replace(previous, reply_markup=markup, at=time.monotonic()))
        return self._message_json(message)

    async def _delete_message(self, call: _Call) -> Any:
        params = call.params
        chat = self._chat_for(params)
        message = self._existing(chat, params.integer("message_id"), "message to delete not found")
        message.deleted = True
        message.deleted_by_bot = True
        return True

    async def _send_video(self, call: _Call) -> Any:
        params = call.params
        chat = self._chat_for(params)
        caption, caption_entities = self._caption(params)
        markup = self._markup(params)
        reply_to = self._reply_target(chat, params)
        value = params.raw.get("video")
        if value is None and "video" in call.uploads:
            value = "attach://video"
        record, source = await self._resolve_video(call, value, params, "video")
        message = self._store(chat.id, self.bot, from_bot=True, reply_to=reply_to, reply_markup=markup)
        message.video = record
        message.caption = caption
        message.caption_entities = caption_entities
        message.history[-1] = dataclasses.replace(
            message.history[-1], text=caption, source=params.text("caption")
        )
        self._apply_send_options(message, params)
        self._videos.append(
            VideoRecord(
                chat_id=chat.id,
                message_id=message.message_id,
                sha256=record.sha256,
                size=record.size,
                file_id=record.file_id,
                file_unique_id=record.file_unique_id,
                source=source,
                reply_to=reply_to,
                caption=caption,
                duration=params.integer("duration") or record.duration,
                width=params.integer("width") or record.width,
                height=params.integer("height") or record.height,
                supports_streaming=params.flag("supports_streaming"),
                silent=message.silent,
                reply_markup=markup,
                at=time.monotonic(),
            )
        )
        return self._message_json(message)

    def _caption(self, params: _Params) -> tuple[str | None, list[dict[str, Any]]]:
        if not params.has("caption"):
            return None, []
        caption, entities = self._formatted(params, "caption", "caption_entities")
        if len(caption) > MAX_CAPTION_LENGTH:
            raise bad_request("message caption is too long")
        return caption, entities

    async def _set_message_reaction(self, call: _Call) -> Any:
        params = call.params
        chat = self._chat_for(params)
        message = self._existing(chat, params.integer("message_id"), "message to react not found")
        reaction = params.decoded("reaction", "reaction") or []
        if not isinstance(reaction, list):
            raise bad_request("REACTION_INVALID")
        emojis: list[str] = []
        for item in reaction:
            if not isinstance(item, dict) or item.get("type") != "emoji":
                raise bad_request("REACTION_INVALID")
            emoji = str(item.get("emoji", ""))
            if emoji not in ALLOWED_REACTIONS:
                raise bad_request("REACTION_INVALID")
            emojis.append(emoji)
        self._reactions.append(ReactionRecord(chat.id, message.message_id, tuple(emojis), time.monotonic()))
        return True

    async def _answer_callback_query(self, call: _Call) -> Any:
        params = call.params
        query_id = params.text("callback_query_id") or ""
        if query_id not in self._pending_callbacks:
            raise bad_request(QUERY_TOO_OLD.removeprefix("Bad Request: "))
        del self._pending_callbacks[query_id]
        answer = CallbackAnswer(query_id, params.text("text"), params.flag("show_alert"), time.monotonic())
        self._callback_answers.append(answer)
        return True

    async def _answer_inline_query(self, call: _Call) -> Any:
        params = call.params
        query_id = params.text("inline_query_id") or ""
        if query_id not in self._pending_inline:
            raise bad_request(QUERY_TOO_OLD.removeprefix("Bad Request: "))
        results = params.decoded("results", "results")
        if not isinstance(results, list):
            raise bad_request("can't parse inline query results JSON object")
        seen: set[str] = set()
        for result in results:
            if not isinstance(result, dict) or not result.get("id") or not result.get("type"):
                raise bad_request("RESULT_ID_INVALID")
            if str(result["id"]) in seen:
                raise bad_request("RESULT_ID_DUPLICATE")
            seen.add(str(result["id"]))
            file_id = result.get("video_file_id")
            if file_id is not None and self.file(str(file_id)) is None:
                raise bad_request("wrong file identifier/HTTP URL specified")
        del self._pending_inline[query_id]
        answer = InlineAnswer(
            query_id, results, params.integer("cache_time"), params.flag("is_personal"), time.monotonic()
        )
        self._inline_answers.append(answer)
        return True

    async def _edit_message_media(self, call: _Call) -> Any:
        params = call.params
        _chat, inline, message = self._target(params)
        media = params.decoded("media", "input media")
        if not isinstance(media, dict):
            raise bad_request("there is no media in the request")
        if media.get("type") != "video":
            raise bad_request("can't use this media type here")
        described = _Params(media)
        caption, caption_entities = self._caption(described)
        record, _source = await self._resolve_video(call, media.get("media"), described, "media")
        markup = self._markup(params)
        edit = MediaEdit(
            inline.inline_message_id if inline else None,
            message.chat_id if message else None,
            message.message_id if message else None,
            media,
            record,
            markup,
            time.monotonic(),
        )
        self._media_edits.append(edit)
        if inline is not None:
            inline.media, inline.reply_markup = record, markup
            return True
        assert message is not None
        if not message.from_bot:
            raise bad_request("message can't be edited")
        message.video, message.caption, message.caption_entities = record, caption, caption_entities
        message.text, message.entities, message.reply_markup = None, [], markup
        message.edit_date = int(time.time())
        message.history.append(
            Version(caption, tuple(caption_entities), markup, time.monotonic(), described.text("caption"))
        )
        return self._message_json(message)

    async def _send_chat_action(self, call: _Call) -> Any:
        chat = self._chat_for(call.params)
        action = call.params.text("action") or ""
        if not action:
            raise bad_request("action is empty")
        self._chat_actions.append((chat.id, action))
        return True

    async def _get_chat(self, call: _Call) -> Any:
        chat = self._chat_for(call.params)
        return chat.to_api() | {"accent_color_id": 0, "max_reaction_count": 11}


_DEFAULT_ALLOWED = frozenset(
    {
        "message",
        "edited_message",
        "channel_post",
        "edited_channel_post",
        "inline_query",
        "chosen_inline_result",
        "callback_query",
        "shipping_query",
        "pre_checkout_query",
        "poll",
        "poll_answer",
        "my_chat_member",
        "chat_join_request",
    }
)


def _video_json(record: FileRecord) -> dict[str, Any]:
    return {
        "file_id": record.file_id,
        "file_unique_id": record.file_unique_id,
        "duration": record.duration,
        "width": record.width,
        "height": record.height,
        "mime_type": "video/mp4",
        "file_size": record.size,
    }


def _check_button(button: Any) -> None:
    if not isinstance(button, dict) or not str(button.get("text", "")).strip():
        raise bad_request(
            "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
        )
    data = button.get("callback_data")
    url = button.get("url")
    if (
        data is None
        and url is None
        and not any(
            key in button
            for key in ("switch_inline_query", "switch_inline_query_current_chat", "web_app", "pay")
        )
    ):
        raise bad_request(
            "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
        )
    if data is not None and not 1 <= len(str(data).encode()) <= MAX_CALLBACK_DATA_BYTES:
        raise bad_request("BUTTON_DATA_INVALID")
    if url is not None and not re.match(r"^(https?|tg)://\S+$", str(url)):
        raise bad_request("BUTTON_URL_INVALID")


def _hash_file(path: Path) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with path.open("rb") as handle:
        while chunk := handle.read(1024 * 1024):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size
