"""The guard's forward proxy: every request yt-dlp and ffmpeg make for a job comes through here.

It listens on 127.0.0.1 only, on a port the OS picks, and serves only clients that present the
random credentials of an open session (Proxy-Authorization: Basic) — one session per tool run,
revoked when the run ends — so other local users cannot borrow it. Each session keeps what was
refused to it, so a run whose tool hid the 403 (a skipped HLS fragment, "ffmpeg exited with
code 1") is still known to have been refused. It forwards plain HTTP (absolute-URI requests,
one per connection) and tunnels HTTPS (CONNECT).
For every connection it resolves the host once, asks the policy about every address, and
connects to an address it checked — a second resolution could answer differently (DNS rebinding);
with an `upstream` (the operator's proxy) it connects through it, to that same address.

A refusal is `403 Refused by vidrelay [<why>]`: yt-dlp prints the reason phrase in its ERROR
line, where the failure classification finds it. Credentials and request targets are never logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets

from returns.result import Failure

from adapters.net.http_head import MAX_HEAD_BYTES, BadHead, Head, answer, read_head
from adapters.net.proxy_request import (
    Refusal,
    closing_downstream,
    connect_target,
    forward_target,
    origin_request,
)
from adapters.net.proxy_session import HOST, ProxySession, session_for
from adapters.net.relay import UPSTREAM_BUFFER, Stream, plain_downstream, relay
from adapters.net.resolver import SystemResolver
from adapters.net.upstream import UpstreamProxy, UpstreamRefused
from ports.net import EgressPolicy, EgressProxy, HostResolver, refusal_phrase

log = logging.getLogger(__name__)

_CHALLENGE = ("Proxy-Authenticate", 'Basic realm="vidrelay"')


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
        upstream: UpstreamProxy | None = None,
    ) -> None:
        """`idle_timeout`: a connection with no byte either way for this long is closed.
        `max_connections`: relayed at once; more wait up to `head_timeout`, then get a 503."""
        self._policy = policy
        self._resolver = resolver if resolver is not None else SystemResolver()
        self._slots = asyncio.Semaphore(max_connections)
        self._idle = idle_timeout
        self._connect_timeout = connect_timeout
        self._head_timeout = head_timeout
        self._upstream = upstream
        self._sessions: dict[str, ProxySession] = {}
        self._next_session = itertools.count(1)
        self._server: asyncio.Server | None = None
        self._starting = asyncio.Lock()
        self._connections: set[asyncio.Task[None]] = set()
        self.refused = 0
        """Connections refused by the policy since the start (for tests and metrics)."""

    @property
    def listening(self) -> bool:
        return self._server is not None

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
        session = session_for(head.header("proxy-authorization"), self._sessions)
        if session is None:
            await _reply(client, answer(407, "Proxy Authentication Required", _CHALLENGE))
            return
        method, target, _ = head.start
        tunnel = method.upper() == "CONNECT"
        where = connect_target(target) if tunnel else forward_target(target)
        if isinstance(where, Refusal):
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
                upstream.writer.write(origin_request(head, origin, host, port))
                downstream = closing_downstream
            if not await relay(client, upstream, self._idle, downstream):
                log.info("guard proxy: closed %s:%s after %ss without a byte", host, port, self._idle)
        finally:
            upstream.writer.close()

    async def _refuse(self, client: Stream, session: ProxySession, host: str, port: int, why: str) -> None:
        self.refused += 1
        # A fragment downloader retries each refused segment: one line per run and reason is enough.
        level = logging.WARNING if session.refused(why) else logging.DEBUG
        log.log(level, "guard proxy refused %s:%s: %s", _ascii(host), port, why)
        await _reply(client, answer(403, refusal_phrase(why), ("X-Vidrelay-Refused", "1")))

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
                    return await self._connect(address, port)
        await _reply(client, answer(502, f"Could not connect to {_ascii(host)}:{port}"))
        return None

    async def _connect(self, address: str, port: int) -> Stream:
        if self._upstream is None:
            reader, writer = await asyncio.open_connection(address, port, limit=UPSTREAM_BUFFER)
            return Stream(reader, writer)
        try:
            return await self._upstream.open(address, port)
        except UpstreamRefused as refused:
            log.warning("guard proxy: the operator's proxy refused a tunnel", extra={"error": str(refused)})
            raise OSError(str(refused)) from None


def _ascii(text: str) -> str:
    return "".join(c if " " <= c <= "~" else "?" for c in text)[:200]


async def _reply(client: Stream, data: bytes) -> None:
    client.writer.write(data)
    await client.writer.drain()
