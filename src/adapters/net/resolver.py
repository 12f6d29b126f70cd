"""Name resolution through the event loop's resolver."""

from __future__ import annotations

import asyncio
import ipaddress
import socket

from ports.net import HostResolver

_TIMEOUT_SECONDS = 10.0


class SystemResolver(HostResolver):
    async def resolve(self, host: str) -> list[str]:
        literal = host.strip("[]")
        try:
            return [str(ipaddress.ip_address(literal))]
        except ValueError:
            pass
        try:
            async with asyncio.timeout(_TIMEOUT_SECONDS):
                infos = await asyncio.get_running_loop().getaddrinfo(literal, None, type=socket.SOCK_STREAM)
        except (OSError, TimeoutError, UnicodeError):
            return []
        return list(dict.fromkeys(str(info[4][0]) for info in infos))
