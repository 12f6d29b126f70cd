"""What a proxy request asks for, and the one-exchange rewrite of a forwarded request and response.

A CONNECT names `host:port`; a forwarded request an absolute `http://` URL, sent on in origin form
(`GET /path?query`) with `Connection: close`, so one connection carries one exchange and a body
simply runs until the site closes.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from adapters.net.http_head import BadHead, Head, answer, closing, read_head, render
from adapters.net.relay import Stream, Touch, plain_downstream


async def closing_downstream(upstream: Stream, client: Stream, touch: Touch) -> bool:
    """The response, its head rewritten to close after it (1xx interim heads pass as they are)."""
    try:
        head = await read_head(upstream.reader)
        while head is not None and head.interim:
            client.writer.write(render(head.start, head.headers))
            head = await read_head(upstream.reader)
    except BadHead:
        head = None
    if head is None:
        client.writer.write(answer(502, "Bad gateway: the site sent no HTTP response"))
        await client.writer.drain()
        return False
    touch()
    client.writer.write(closing(head))
    return await plain_downstream(upstream, client, touch)


def origin_request(head: Head, origin: str, host: str, port: int) -> bytes:
    headers = head.headers
    if head.header("host") is None:
        headers = (("Host", f"[{host}]:{port}" if ":" in host else f"{host}:{port}"), *headers)
    return closing(Head((head.start[0], origin, "HTTP/1.1"), headers))


@dataclass(frozen=True, slots=True)
class Refusal:
    why: str


Target = tuple[str, int, str] | Refusal | str
"""(host, port, origin-form path), a refusal by the guard, or why the request is malformed."""


def connect_target(target: str) -> Target:
    host, sep, port = target.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        return "CONNECT needs host:port"
    return host.strip("[]"), int(port), ""


def forward_target(target: str) -> Target:
    try:
        parts = urlsplit(target)
        host, port = parts.hostname, parts.port
    except ValueError:
        return "malformed request target"
    if not parts.scheme:
        return "not a proxy request (the target must be an absolute http:// URL)"
    if parts.scheme.lower() == "https":
        return "https goes through CONNECT"
    if parts.scheme.lower() != "http":
        return Refusal(f"scheme {parts.scheme!r} is not allowed")
    if not host:
        return "the URL has no host"
    origin = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return host, port if port is not None else 80, origin
