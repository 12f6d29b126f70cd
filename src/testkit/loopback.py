"""The part every local test server shares: an aiohttp app on 127.0.0.1, on a port the OS picks."""

from __future__ import annotations

import asyncio
import socket
from types import TracebackType
from typing import Self

from aiohttp import web

HOST = "127.0.0.1"


class LoopbackServer:
    """Subclasses build their app in `_application()`; `async with` starts and stops it."""

    def __init__(self) -> None:
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self._stopping = asyncio.Event()
        """Set at stop, so handlers that wait on purpose (stalls, long polls) end at once."""

    def _application(self) -> web.Application:
        raise NotImplementedError

    async def start(self) -> None:
        """Listen on a port the OS picks; a server started again after `stop()` takes its old port
        back, so a client keeps its address across the outage (connections refused meanwhile)."""
        self._stopping.clear()
        self._runner = web.AppRunner(
            self._application(), access_log=None, handler_cancellation=True, shutdown_timeout=1.0
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, HOST, self._port or 0)
        await site.start()
        server = site._server  # aiohttp has no public way to read a port-0 bind
        assert isinstance(server, asyncio.Server)
        self._port = server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        self._stopping.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"


def free_port() -> int:
    """A port nothing listens on right now (for "connection refused")."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port
