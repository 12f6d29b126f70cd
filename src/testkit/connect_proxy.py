"""An operator's HTTP proxy, on 127.0.0.1: it tunnels `CONNECT host:port` and forwards plain
`GET http://…` requests (optionally only with the right Proxy-Authorization), and records every
target it was asked for."""

from __future__ import annotations

import asyncio
import base64
import contextlib
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit

from testkit.loopback import HOST


class ConnectProxy:
    def __init__(self, *, user: str | None = None, password: str | None = None) -> None:
        self._expected = (
            "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode() if user is not None else None
        )
        self.targets: list[str] = []
        """Every CONNECT target asked for, in order (refused ones included)."""
        self.refused = 0
        self._server: asyncio.Server | None = None

    @property
    def port(self) -> int:
        assert self._server is not None, "not started"
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    def url(self, credentials: str = "") -> str:
        return f"http://{credentials}{'@' if credentials else ''}{HOST}:{self.port}"

    async def __aenter__(self) -> Self:
        self._server = await asyncio.start_server(self._serve, HOST, 0)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            method, target, _ = head[0].split(" ", 2)
            headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in head[1:] if line)}
            self.targets.append(target)
            if self._expected is not None and headers.get("proxy-authorization") != self._expected:
                self.refused += 1
                writer.write(b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n")
                return
            tunnel = method == "CONNECT"
            host, port, origin = _where(target, tunnel)
            up_reader, up_writer = await asyncio.open_connection(host, port)
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\n\r\n")
            return
        finally:
            with contextlib.suppress(OSError):
                await writer.drain()
        if tunnel:
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            kept = [line for line in head[1:] if line and not line.lower().startswith("proxy-")]
            up_writer.write("\r\n".join([f"{method} {origin} HTTP/1.1", *kept, "", ""]).encode("latin-1"))
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))


def _where(target: str, tunnel: bool) -> tuple[str, int, str]:
    if tunnel:
        host, _, port = target.rpartition(":")
        return host.strip("[]"), int(port), ""
    parts = urlsplit(target)
    origin = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.hostname or "", parts.port or 80, origin


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while chunk := await source.read(65536):
            sink.write(chunk)
            await sink.drain()
    except OSError:
        pass
    finally:
        sink.close()
