"""The guard's forward proxy on real loopback sockets: who may use it, where it connects, what it
refuses, and that a stalled or vanished peer never holds a connection."""

from __future__ import annotations

import asyncio
import base64
import ipaddress
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

import pytest

from adapters.net.forward_proxy import ForwardProxy
from adapters.net.proxy_session import ProxySession
from core.url_policy import Endpoint, GuardRules
from ports.net import HostResolver
from testkit.video_site import Stall, VideoServer
from tests.support.integration import wait_until

pytestmark = pytest.mark.slow
REFUSAL = b"HTTP/1.1 403 Refused by vidrelay"


@dataclass
class CountingResolver(HostResolver):
    """Names of our own choosing (`*.test`), so nothing but this fake could resolve them."""

    answers: dict[str, list[str]] = field(default_factory=dict)
    asked: list[str] = field(default_factory=list)

    async def resolve(self, host: str) -> list[str]:
        self.asked.append(host)
        if host in self.answers:
            return self.answers[host]
        try:
            return [str(ipaddress.ip_address(host))]
        except ValueError:
            return []


class Doorbell:
    """A TCP listener on 127.0.0.1 that counts the connections that reach it."""

    def __init__(self) -> None:
        self.rings = 0
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> Doorbell:
        self._server = await asyncio.start_server(self._ring, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self._server is not None
        self._server.close()

    @property
    def port(self) -> int:
        assert self._server is not None
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def _ring(self, _: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.rings += 1
        writer.close()


@dataclass
class Setup:
    proxy: ForwardProxy
    session: ProxySession
    site: VideoServer
    resolver: CountingResolver

    @property
    def auth(self) -> str:
        userinfo = self.session.url.split("//", 1)[1].split("@", 1)[0]
        return "Basic " + base64.b64encode(userinfo.encode()).decode()


async def _setup(site: VideoServer, **proxy_options: float) -> Setup:
    resolver = CountingResolver({"site.test": ["127.0.0.1"], "rebind.test": ["127.0.0.1"]})
    rules = GuardRules([Endpoint("127.0.0.1", site.port), Endpoint("site.test", site.port)])
    proxy = ForwardProxy(rules, resolver, **proxy_options)  # type: ignore[arg-type]
    return Setup(proxy, await proxy.session(), site, resolver)


@pytest.fixture
async def setup(video_server: VideoServer) -> AsyncIterator[Setup]:
    s = await _setup(video_server)
    yield s
    await s.proxy.aclose()


async def _exchange(proxy: ForwardProxy, request: str) -> tuple[bytes, bytes]:
    """Send `request` to the proxy; (status line and headers, body) of what comes back until it closes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", await proxy.port())
    writer.write(request.encode())
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 30)
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return head, body


def _get(url: str, auth: str | None, host: str = "") -> str:
    lines = [f"GET {url} HTTP/1.1", f"Host: {host or url.split('/')[2]}", "Connection: keep-alive"]
    if auth is not None:
        lines.append(f"Proxy-Authorization: {auth}")
    return "\r\n".join([*lines, "", ""])


def _connect(target: str, auth: str | None) -> str:
    lines = [f"CONNECT {target} HTTP/1.1", f"Host: {target}"]
    if auth is not None:
        lines.append(f"Proxy-Authorization: {auth}")
    return "\r\n".join([*lines, "", ""])


async def test_a_request_without_credentials_is_challenged_and_never_forwarded(setup: Setup) -> None:
    head, _ = await _exchange(setup.proxy, _get(setup.site.url("/clips/short.mp4"), None))
    assert head.startswith(b"HTTP/1.1 407 ")
    assert b'Proxy-Authenticate: Basic realm="vidrelay"' in head
    assert setup.site.requests == []


@pytest.mark.parametrize(
    "auth",
    [
        "Basic " + base64.b64encode(b"run1:not-the-secret").decode(),
        "Basic " + base64.b64encode(b"nobody:x").decode(),
        "Basic !!!not-base64",
        "Bearer abc",
    ],
)
async def test_wrong_credentials_are_challenged(setup: Setup, auth: str) -> None:
    head, _ = await _exchange(setup.proxy, _get(setup.site.url("/clips/short.mp4"), auth))
    assert head.startswith(b"HTTP/1.1 407 ")
    assert setup.site.requests == []


async def test_a_closed_sessions_credentials_no_longer_work(setup: Setup) -> None:
    auth = setup.auth
    setup.session.close()
    head, _ = await _exchange(setup.proxy, _get(setup.site.url("/clips/short.mp4"), auth))
    assert head.startswith(b"HTTP/1.1 407 ")


async def test_sessions_have_their_own_secrets(setup: Setup) -> None:
    other = await setup.proxy.session()
    assert other.url != setup.session.url
    assert other.url.startswith(f"http://run2:{other.secret}@127.0.0.1:{await setup.proxy.port()}")
    assert len(other.secret) >= 32


async def test_plain_http_to_an_allowlisted_site_is_forwarded_whole_and_closed(setup: Setup) -> None:
    head, body = await _exchange(setup.proxy, _get(setup.site.url("/clips/short.mp4"), setup.auth))
    assert head.startswith(b"HTTP/1.1 200 ")
    assert b"Connection: close" in head
    assert body == setup.site.clip("short").read_bytes()
    assert [r.path for r in setup.site.requests] == ["/clips/short.mp4"]
    assert setup.session.refusals == []


async def test_the_proxy_credentials_and_hop_headers_never_reach_the_site(video_server: VideoServer) -> None:
    seen: list[bytes] = []

    async def record(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.append(await reader.readuntil(b"\r\n\r\n"))
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok")
        await writer.drain()
        writer.close()

    origin = await asyncio.start_server(record, "127.0.0.1", 0)
    port = origin.sockets[0].getsockname()[1]
    proxy = ForwardProxy(GuardRules([Endpoint("127.0.0.1", port)]), CountingResolver())
    session = await proxy.session()
    auth = "Basic " + base64.b64encode(f"run1:{session.secret}".encode()).decode()
    try:
        head, body = await _exchange(proxy, _get(f"http://127.0.0.1:{port}/a/b?c=d#frag", auth))
    finally:
        origin.close()
        await proxy.aclose()
    assert (head.split(b"\r\n")[0], body) == (b"HTTP/1.1 200 OK", b"ok")
    assert b"Connection: close" in head
    assert b"keep-alive" not in head
    request = seen[0].decode()
    assert request.startswith("GET /a/b?c=d HTTP/1.1\r\n")
    assert "Proxy-Authorization" not in request
    assert session.secret not in request
    assert "Connection: close" in request


async def test_plain_http_to_a_private_port_off_the_list_is_refused_and_never_connected(setup: Setup) -> None:
    async with Doorbell() as private:
        head, body = await _exchange(setup.proxy, _get(f"http://127.0.0.1:{private.port}/x", setup.auth))
    why = "the link leads to a private address (127.0.0.1)"
    assert head.split(b"\r\n")[0] == f"HTTP/1.1 403 Refused by vidrelay [{why}]".encode()
    assert body.decode().strip() == f"Refused by vidrelay [{why}]"
    assert private.rings == 0
    assert setup.session.refusals == [why]
    assert setup.proxy.refused == 1


async def test_connect_to_a_private_address_is_refused_and_never_connected(setup: Setup) -> None:
    async with Doorbell() as private:
        head, _ = await _exchange(setup.proxy, _connect(f"127.0.0.1:{private.port}", setup.auth))
        head6, _ = await _exchange(setup.proxy, _connect(f"[::1]:{private.port}", setup.auth))
    assert head.startswith(
        b"HTTP/1.1 403 Refused by vidrelay [the link leads to a private address (127.0.0.1)]"
    )
    assert head6.startswith(b"HTTP/1.1 403 Refused by vidrelay [the link leads to a private address (::1)]")
    assert private.rings == 0


async def test_connect_to_the_allowlisted_site_tunnels_both_ways(setup: Setup) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", await setup.proxy.port())
    writer.write(_connect(f"site.test:{setup.site.port}", setup.auth).encode())
    established = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    writer.write(b"GET /clips/short.mp4 HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n")
    data = await asyncio.wait_for(reader.read(), 30)
    writer.close()
    assert established == b"HTTP/1.1 200 Connection established\r\n\r\n"
    assert data.startswith(b"HTTP/1.1 200 ")
    assert data.endswith(setup.site.clip("short").read_bytes())
    assert [r.path for r in setup.site.requests] == ["/clips/short.mp4"]


async def test_every_address_is_checked_and_the_checked_one_is_connected(setup: Setup) -> None:
    setup.resolver.answers["mixed.test"] = ["93.184.216.34", "10.0.0.5"]
    head, _ = await _exchange(setup.proxy, _connect("mixed.test:443", setup.auth))
    assert head.startswith(
        b"HTTP/1.1 403 Refused by vidrelay [the link leads to a private address (10.0.0.5)]"
    )
    # rebind.test exists only in the fake resolver: reaching the site proves the proxy connected to
    # the address it checked instead of resolving the name again.
    setup.resolver.asked.clear()
    allowed = GuardRules([Endpoint("rebind.test", setup.site.port)])
    proxy = ForwardProxy(allowed, setup.resolver)
    session = await proxy.session()
    auth = "Basic " + base64.b64encode(f"run1:{session.secret}".encode()).decode()
    try:
        url = f"http://rebind.test:{setup.site.port}/clips/short.mp4"
        head, body = await _exchange(proxy, _get(url, auth))
    finally:
        await proxy.aclose()
    assert head.startswith(b"HTTP/1.1 200 ")
    assert body == setup.site.clip("short").read_bytes()
    assert setup.resolver.asked == ["rebind.test"]


@pytest.mark.parametrize(
    ("request_text", "status"),
    [
        ("GET ftp://127.0.0.1/x HTTP/1.1\r\n", b"403 Refused by vidrelay [scheme 'ftp' is not allowed]"),
        ("GET /relative HTTP/1.1\r\n", b"400 "),
        ("GET https://site.test/x HTTP/1.1\r\n", b"400 "),
        ("CONNECT site.test HTTP/1.1\r\n", b"400 "),
        ("GET http://nowhere.test/x HTTP/1.1\r\n", b"502 Could not resolve nowhere.test"),
    ],
)
async def test_odd_requests_get_a_clear_answer(setup: Setup, request_text: str, status: bytes) -> None:
    head, _ = await _exchange(setup.proxy, f"{request_text}Proxy-Authorization: {setup.auth}\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 " + status)


async def test_garbage_and_oversized_heads_end_only_their_own_connection(setup: Setup) -> None:
    smuggled = f"GET {setup.site.url('/x')} HTTP/1.1\r\nX: a\nGET /y HTTP/1.1\r\n\r\n".encode()
    for junk in (
        b"\x00\x01\x02 not http\r\n\r\n",
        b"GET http://x/ HTTP/1.1\r\nX: " + b"a" * 70_000,
        smuggled,
    ):
        reader, writer = await asyncio.open_connection("127.0.0.1", await setup.proxy.port())
        writer.write(junk)
        await writer.drain()
        assert (await asyncio.wait_for(reader.read(), 10)).startswith(b"HTTP/1.1 400 ")
        writer.close()
    assert setup.resolver.asked == []
    assert setup.site.requests == []
    head, _ = await _exchange(setup.proxy, _get(setup.site.url("/clips/short.mp4"), setup.auth))
    assert head.startswith(b"HTTP/1.1 200 ")


async def test_a_stalled_upstream_is_closed_after_the_idle_timeout(video_server: VideoServer) -> None:
    s = await _setup(video_server, idle_timeout=0.5)
    try:
        head, body = await _exchange(s.proxy, _get(video_server.url("/faults/stall.mp4"), s.auth))
        assert head.startswith(b"HTTP/1.1 200 ")
        assert body == b""  # the headers came, then the proxy hung up on the silence
        await wait_until(lambda: s.proxy.open_connections == 0)
    finally:
        await s.proxy.aclose()


async def test_a_client_that_vanishes_mid_download_leaves_the_proxy_serving(setup: Setup) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", await setup.proxy.port())
    writer.write(_get(setup.site.url("/faults/slow.mp4"), setup.auth).encode())
    await reader.readuntil(b"\r\n\r\n")
    writer.transport.abort()  # a reset, not a goodbye
    await wait_until(lambda: setup.proxy.open_connections == 0)
    head, body = await _exchange(setup.proxy, _get(setup.site.url("/clips/short.mp4"), setup.auth))
    assert head.startswith(b"HTTP/1.1 200 ")
    assert body == setup.site.clip("short").read_bytes()


async def test_connections_beyond_the_cap_wait_then_are_told_the_proxy_is_busy(
    video_server: VideoServer,
) -> None:
    video_server.set_route("/stall", Stall())
    s = await _setup(video_server, max_connections=1, head_timeout=0.5)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", await s.proxy.port())
        writer.write(_get(video_server.url("/stall"), s.auth).encode())
        await reader.readuntil(b"\r\n\r\n")  # holds the only slot
        head, _ = await _exchange(s.proxy, _get(video_server.url("/clips/short.mp4"), s.auth))
        writer.close()
        assert head.startswith(b"HTTP/1.1 503 ")
        assert video_server.hits("/clips/short.mp4") == 0
    finally:
        await s.proxy.aclose()


async def test_close_drops_open_connections_and_a_later_session_starts_it_again(setup: Setup) -> None:
    setup.site.set_route("/stall", Stall())
    reader, writer = await asyncio.open_connection("127.0.0.1", await setup.proxy.port())
    writer.write(_get(setup.site.url("/stall"), setup.auth).encode())
    await reader.readuntil(b"\r\n\r\n")
    await setup.proxy.aclose()
    assert await asyncio.wait_for(reader.read(), 10) == b""
    writer.close()
    session = await setup.proxy.session()
    auth = "Basic " + base64.b64encode(f"run2:{session.secret}".encode()).decode()
    head, _ = await _exchange(setup.proxy, _get(setup.site.url("/clips/short.mp4"), auth))
    assert head.startswith(b"HTTP/1.1 200 ")


async def test_nothing_the_proxy_logs_carries_a_secret(
    setup: Setup, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with Doorbell() as private:
        await _exchange(setup.proxy, _get(f"http://127.0.0.1:{private.port}/x", setup.auth))
        await _exchange(setup.proxy, _get(f"http://127.0.0.1:{private.port}/x", None))
    await _exchange(setup.proxy, _get(setup.site.url("/clips/short.mp4"), setup.auth))
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "refused 127.0.0.1" in logged
    assert setup.session.secret not in logged
    assert setup.auth.split()[1] not in logged


def _refusals(sessions: Sequence[ProxySession]) -> list[list[str]]:
    return [s.refusals for s in sessions]


async def test_a_refusal_is_kept_by_the_session_that_was_refused_and_logged_once(
    setup: Setup, caplog: pytest.LogCaptureFixture
) -> None:
    other = await setup.proxy.session()
    other_auth = "Basic " + base64.b64encode(f"run2:{other.secret}".encode()).decode()
    async with Doorbell() as private:
        for _ in range(5):  # a fragment downloader retrying one refused segment
            await _exchange(setup.proxy, _get(f"http://127.0.0.1:{private.port}/x", other_auth))
    assert _refusals([setup.session, other]) == [[], ["the link leads to a private address (127.0.0.1)"]]
    assert setup.proxy.refused == 5
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING and "refused" in r.getMessage()]
    assert len(warnings) == 1
