"""HTTP/1.x message heads, as far as a forwarding proxy needs them: read, parse, rewrite, answer.

Bodies are never parsed: every forwarded exchange is one request per connection (`Connection:
close` both ways), so a body simply runs until a side closes.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

MAX_HEAD_BYTES = 64 * 1024
_END = b"\r\n\r\n"
HOP_BY_HOP = frozenset(
    {"connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te"}
)


_VERSION = re.compile(r"HTTP/1\.\d")


class BadHead(Exception):
    """The peer sent something that is not an HTTP/1.x head (or a head too large)."""


@dataclass(frozen=True, slots=True)
class Head:
    """A request line (`method target version`) or a status line (`version status reason`), and headers."""

    start: tuple[str, str, str]
    headers: tuple[tuple[str, str], ...]

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        return next((value for key, value in self.headers if key.lower() == wanted), None)

    @property
    def status(self) -> int | None:
        """The status code, when this is a response head."""
        code = self.start[1]
        return int(code) if self.start[0].startswith("HTTP/") and code.isdigit() else None

    @property
    def interim(self) -> bool:
        """A 1xx response that another head follows (101 switches protocols instead)."""
        return self.status is not None and 100 <= self.status < 200 and self.status != 101


async def read_head(reader: asyncio.StreamReader) -> Head | None:
    """The next head on `reader`; None when the peer closed before sending one. Raises BadHead."""
    try:
        raw = await reader.readuntil(_END)
    except asyncio.IncompleteReadError as e:
        if not e.partial.strip():
            return None
        raise BadHead("the connection closed inside a head") from None
    except asyncio.LimitOverrunError:
        raise BadHead("head too large") from None
    return parse_head(raw)


def parse_head(raw: bytes) -> Head:
    lines = raw.decode("latin-1").split("\r\n")
    if any("\r" in line or "\n" in line for line in lines):
        raise BadHead("a bare CR or LF")  # what a smuggled second request would need
    while lines and not lines[0]:
        lines.pop(0)  # RFC 9112 §2.2: a server ignores empty lines before a request line
    if not lines:
        raise BadHead("empty head")
    start = lines[0].split(" ", 2)
    # A status line starts with the version, a request line ends with it.
    if (
        len(start) != 3
        or not all(start[:2])
        or not (_VERSION.fullmatch(start[0]) or _VERSION.fullmatch(start[2]))
    ):
        raise BadHead("malformed start line")
    headers = []
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise BadHead("malformed header line")
        headers.append((name, value.strip()))
    return Head((start[0], start[1], start[2]), tuple(headers))


def render(start: tuple[str, str, str], headers: tuple[tuple[str, str], ...]) -> bytes:
    lines = [" ".join(start), *(f"{name}: {value}" for name, value in headers)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def end_to_end(head: Head) -> tuple[tuple[str, str], ...]:
    """The head's headers without the hop-by-hop ones (and those its Connection header names)."""
    named = {token.strip().lower() for token in (head.header("connection") or "").split(",")}
    dropped = HOP_BY_HOP | named
    return tuple((name, value) for name, value in head.headers if name.lower() not in dropped)


def closing(head: Head) -> bytes:
    """`head` re-rendered for a single exchange: end-to-end headers plus `Connection: close`."""
    return render(head.start, (*end_to_end(head), ("Connection", "close")))


def answer(status: int, reason: str, *extra: tuple[str, str]) -> bytes:
    """A complete response from the proxy itself; the reason is its body too."""
    body = (reason + "\n").encode("latin-1", "replace")
    headers = (
        ("Content-Type", "text/plain; charset=iso-8859-1"),
        ("Content-Length", str(len(body))),
        ("Connection", "close"),
        *extra,
    )
    return render(("HTTP/1.1", str(status), reason), headers) + body
