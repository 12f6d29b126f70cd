"""What the site does at a path: serve bytes, stall, trickle, cut the connection, fail first, or
send the client elsewhere."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

MAX_STALL_SECONDS = 120.0


@dataclass(frozen=True, slots=True)
class Body:
    """Answer with these bytes."""

    data: bytes
    content_type: str = "text/html"
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    """More response headers, e.g. (("cf-mitigated", "challenge"),) as Cloudflare's bot check sends."""


@dataclass(frozen=True, slots=True)
class Stall:
    """Send the headers (and `head` bytes), then nothing until the client or the server gives up."""

    content_length: int = 1_000_000
    content_type: str = "video/mp4"
    head: bytes = b""
    max_seconds: float = MAX_STALL_SECONDS


@dataclass(frozen=True, slots=True)
class Trickle:
    """Send `data` in `chunks` pieces spread evenly over `seconds`."""

    data: bytes
    seconds: float
    content_type: str = "video/mp4"
    chunks: int = 20
    announce_length: bool = True
    """False: no Content-Length (a chunked body), so the client learns the size only at the end."""


@dataclass(frozen=True, slots=True)
class Cut:
    """Promise all of `data` (Content-Length), send the first `after_bytes`, then drop the connection."""

    data: bytes
    after_bytes: int
    content_type: str = "video/mp4"


@dataclass(frozen=True, slots=True)
class Redirect:
    """Send the client to `location` (an absolute URL may point at another server)."""

    location: str
    status: int = 302


@dataclass(slots=True)
class FailThen:
    """Answer `times` requests with an error page of `status`, then behave as `then`."""

    status: int
    times: int
    then: Behaviour
    served_failures: int = 0


Behaviour: TypeAlias = Body | Stall | Trickle | Cut | FailThen | Redirect
