"""A TCP proxy on 127.0.0.1 between a client and a server, that a test can make go silent.

`silence()` is the network fault no error reports: every connection stays open on both sides,
the kernel still acknowledges and answers keepalive probes, and not one byte is forwarded (what
arrives meanwhile is dropped), so the client's calls neither return nor fail. `resume()` forwards
again on new connections; the silenced ones stay dead, as after a real partition. `cut()` closes
every connection at once (a reset); new ones are accepted as before.
"""

from __future__ import annotations

import asyncio
import contextlib
from types import TracebackType
from typing import Self

HOST = "127.0.0.1"
_CHUNK = 65536


class TcpProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self._target = (target_host, target_port)
        self._server: asyncio.Server | None = None
        self._links: set[_Link] = set()
        self.silent = False
        self.accepted = 0
        """Connections accepted so far."""

    async def __aenter__(self) -> Self:
        self._server = await asyncio.start_server(self._accept, HOST, 0)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._server is not None:
            self._server.close()
        self.cut()
        if self._server is not None:
            await self._server.wait_closed()

    @property
    def port(self) -> int:
        assert self._server is not None
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    def dsn_through(self, dsn: str, target_port: int) -> str:
        """`dsn` with its port changed to this proxy's (the host stays 127.0.0.1)."""
        return dsn.replace(f":{target_port}/", f":{self.port}/", 1)

    def silence(self) -> None:
        """Forward nothing, on every open connection and on the ones accepted from now on."""
        self.silent = True
        for link in self._links:
            link.silent = True

    def resume(self) -> None:
        """New connections are forwarded again; the ones silenced stay silent."""
        self.silent = False

    def cut(self) -> None:
        for link in list(self._links):
            link.close()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        link = _Link(writer, silent=self.silent)
        self._links.add(link)
        try:
            if not link.silent:
                with contextlib.suppress(OSError):
                    upstream_reader, upstream_writer = await asyncio.open_connection(*self._target)
                    link.upstream = upstream_writer
                    await asyncio.gather(
                        link.pump(reader, upstream_writer), link.pump(upstream_reader, writer)
                    )
            await link.closed.wait()  # a silent link holds its socket open until cut
        finally:
            link.close()
            self._links.discard(link)


class _Link:
    def __init__(self, client: asyncio.StreamWriter, *, silent: bool) -> None:
        self.client = client
        self.upstream: asyncio.StreamWriter | None = None
        self.silent = silent
        self.closed = asyncio.Event()

    async def pump(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await source.read(_CHUNK):
                if self.silent:
                    continue  # swallowed: neither side hears of it
                sink.write(data)
                await sink.drain()
        if not self.silent:
            self.close()

    def close(self) -> None:
        self.closed.set()
        for writer in (self.client, self.upstream):
            if writer is not None:
                writer.close()
