"""The guard's forward proxy: every request yt-dlp and ffmpeg make for a job comes through here.

It listens on 127.0.0.1 only, on a port the OS picks, and serves only clients that present the
random credentials of an open session (Proxy-Authorization: Basic) — one session per tool run,
revoked when the run ends — so other local users cannot borrow it. Each session keeps what was
refused to it, so a run whose tool hid the 403 (a skipped HLS fragment, "ffmpeg exited with
code 1") is still known to have been refused. It
forwards plain HTTP (absolute-URI requests, one per connection) and tunnels HTTPS (CONNECT).
For every connection it resolves the host once, asks the policy about every address, and
connects to an address it checked — a second resolution could answer differently (DNS rebinding).

A refusal is `403 Refused by vidrelay [<why>]`: yt-dlp prints the reason phrase in its ERROR
line, where the failure classification finds it. Credentials and request targets are never logged.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import hmac
import itertools
import logging
import secrets
from dataclasses import dataclass
from urllib.parse import urlsplit

from returns.result import Failure

from adapters.net.http_head import MAX_HEAD_BYTES, BadHead, Head, answer, closing, read_head, render
from adapters.net.relay import Stream, Touch, plain_downstream, relay
from adapters.net.resolver import SystemResolver
from ports.net import EgressPolicy, EgressProxy, EgressSession, HostResolver, refusal_phrase

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
_CHALLENGE = ("Proxy-Authenticate", 'Basic realm="vidrelay"')


class ProxySession(EgressSession):
    _MAX_KEPT = 20

    def __init__(self, user: str, secret: str, port: int, registry: dict[str, ProxySession]) -> None:
        self._user = user
        self._secret = secret
        self._port = port
        self._registry = registry
        self._refusals: list[str] = []

    @property
    def url(self) -> str:
        return f"http://{self._user}:{self._secret}@{HOST}:{self._port}"

    @property
    def secret(self) -> str:
        return self._secret

    @property
    def refusals(self) -> list[str]:
        return list(self._refusals)

    def admits(self, secret: str) -> bool:
        return hmac.compare_digest(secret.encode(), self._secret.encode())

    def refused(self, why: str) -> None:
        if len(self._refusals) < self._MAX_KEPT:
            self._refusals.append(why)

    @property
    def closed(self) -> bool:
        return self._registry.get(self._user) is not self

    def close(self) -> None:
        self._registry.pop(self._user, None)


class ForwardProxy(EgressProxy):
    def __init__(
        self,
        policy: EgressPolicy,
        resolver: HostResolver | None = None,
        *,
        max_connections: int = 64,
        idle_timeout: float = 60.0,
        connect_timeout: float = 15.0,
        head_timeout: float = 30.0,
    ) -> None:
        """`idle_timeout`: a connection with no byte either way for this long is closed.
        `max_connections`: relayed at once; more wait up to `head_timeout`, then get a 503."""
        self._policy = policy
        self._resolver = resolver if resolver is not None else SystemResolver()
        self._slots = asyncio.Semaphore(max_connections)
        self._idle = idle_timeout
        self._connect_timeout = connect_timeout
        self._head_timeout = head_timeout
        self._sessions: dict[str, ProxySession] = {}
        self._next_session = itertools.count(1)
        self._server: asyncio.Server | None = None
        self._starting = asyncio.Lock()
        self._connections: set[asyncio.Task[None]] = set()
        self.refused = 0
        """Connections refused by the policy since the start (for tests and metrics)."""

    @property
    def open_connections(self) -> int:
        return len(self._connections)

    async def session(self) -> ProxySession:
        port = await self.port()
        user = f"run{next(self._next_session)}"
        session = ProxySession(user, secrets.token_urlsafe(24), port, self._sessions)
        self._sessions[user] = session
        return session

    async def port(self) -> int:
        """The listening port, starting the proxy if it is not running."""
        async with self._starting:
            if self._server is None:
                self._server = await asyncio.start_server(self._accept, HOST, 0, limit=MAX_HEAD_BYTES)
                log.info("guard proxy listening on %s:%s", HOST, self._server.sockets[0].getsockname()[1])
            port: int = self._server.sockets[0].getsockname()[1]
            return port

    async def aclose(self) -> None:
        """Stop listening and drop every open connection; a later `session()` starts it afresh."""
        async with self._starting:
            server, self._server = self._server, None
        if server is None:
            return
        server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        await server.wait_closed()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        client = Stream(reader, writer)
        try:
            await self._serve(client)
        except (OSError, TimeoutError):
            pass  # the client went away or spoke nonsense: its connection ends, nothing else does
        except Exception:
            log.exception("guard proxy: unexpected error on a connection")
        finally:
            self._connections.discard(task)
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async def _serve(self, client: Stream) -> None:
        try:
            async with asyncio.timeout(self._head_timeout):
                await self._slots.acquire()
        except TimeoutError:
            await _reply(client, answer(503, "Proxy busy"))
            return
        try:
            async with asyncio.timeout(self._head_timeout):
                head = await read_head(client.reader)
            if head is not None:
                await self._exchange(client, head)
        except BadHead as e:
            await _reply(client, answer(400, f"Bad request: {e}"))
        finally:
            self._slots.release()

    async def _exchange(self, client: Stream, head: Head) -> None:
        session = self._authorized(head)
        if session is None:
            await _reply(client, answer(407, "Proxy Authentication Required", _CHALLENGE))
            return
        method, target, _ = head.start
        tunnel = method.upper() == "CONNECT"
        where = _authority(target) if tunnel else _absolute_http(target)
        if isinstance(where, _Refusal):
            await self._refuse(client, session, "(request)", 0, where.why)
            return
        if isinstance(where, str):
            await _reply(client, answer(400, _ascii(where)))
            return
        host, port, origin = where
        upstream = await self._open(client, session, host, port)
        if upstream is None:
            return
        try:
            if tunnel:
                await _reply(client, b"HTTP/1.1 200 Connection established\r\n\r\n")
                downstream = plain_downstream
            else:
                upstream.writer.write(_origin_request(head, origin, host, port))
                downstream = _closing_downstream
            if not await relay(client, upstream, self._idle, downstream):
                log.info("guard proxy: closed %s:%s after %ss without a byte", host, port, self._idle)
        finally:
            upstream.writer.close()

    async def _refuse(self, client: Stream, session: ProxySession, host: str, port: int, why: str) -> None:
        self.refused += 1
        session.refused(why)
        log.warning("guard proxy refused %s:%s: %s", _ascii(host), port, why)
        await _reply(client, answer(403, refusal_phrase(why), ("X-Vidrelay-Refused", "1")))

    def _authorized(self, head: Head) -> ProxySession | None:
        scheme, _, token = (head.header("proxy-authorization") or "").partition(" ")
        if scheme.lower() != "basic":
            return None
        try:
            user, _, secret = base64.b64decode(token.strip(), validate=True).decode().partition(":")
        except (binascii.Error, ValueError):
            return None
        session = self._sessions.get(user)
        return session if session is not None and session.admits(secret) else None

    async def _open(self, client: Stream, session: ProxySession, host: str, port: int) -> Stream | None:
        """A connection to a checked address of host:port; None when refused or unreachable (the
        client has been answered)."""
        addresses = await self._resolver.resolve(host)
        if not addresses:
            await _reply(client, answer(502, f"Could not resolve {_ascii(host)}"))
            return None
        verdict = self._policy.check(host, port, addresses)
        if isinstance(verdict, Failure):
            await self._refuse(client, session, host, port, verdict.failure())
            return None
        for address in addresses:
            with contextlib.suppress(OSError, TimeoutError):
                async with asyncio.timeout(self._connect_timeout):
                    reader, writer = await asyncio.open_connection(address, port, limit=MAX_HEAD_BYTES)
                return Stream(reader, writer)
        await _reply(client, answer(502, f"Could not connect to {_ascii(host)}:{port}"))
        return None


async def _closing_downstream(upstream: Stream, client: Stream, touch: Touch) -> bool:
    """The response, its head rewritten to close after it (1xx interim heads pass as they are)."""
    try:
        head = await read_head(upstream.reader)
        while (
            head is not None and head.status is not None and 100 <= head.status < 200 and head.status != 101
        ):
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


def _origin_request(head: Head, origin: str, host: str, port: int) -> bytes:
    headers = head.headers
    if head.header("host") is None:
        headers = (("Host", f"[{host}]:{port}" if ":" in host else f"{host}:{port}"), *headers)
    return closing(Head((head.start[0], origin, "HTTP/1.1"), headers))


@dataclass(frozen=True, slots=True)
class _Refusal:
    why: str


_Target = tuple[str, int, str] | _Refusal | str
"""(host, port, origin-form path), a refusal by the guard, or why the request is malformed."""


def _authority(target: str) -> _Target:
    host, sep, port = target.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        return "CONNECT needs host:port"
    return host.strip("[]"), int(port), ""


def _absolute_http(target: str) -> _Target:
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
        return _Refusal(f"scheme {parts.scheme!r} is not allowed")
    if not host:
        return "the URL has no host"
    origin = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return host, port if port is not None else 80, origin


def _ascii(text: str) -> str:
    return "".join(c if " " <= c <= "~" else "?" for c in text)[:200]


async def _reply(client: Stream, data: bytes) -> None:
    client.writer.write(data)
    await client.writer.drain()
