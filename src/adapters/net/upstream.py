"""The operator's own proxy behind the guard (VIDRELAY_PROXY: a residential proxy for sites that
refuse datacenter addresses, a company's way out).

The guard still decides: it resolves the host once, checks every address, and only then opens the
connection — through the operator's proxy, to the very address it checked: `CONNECT <ip>:<port>`,
never the host name, so the proxy cannot resolve it again to somewhere else. A proxy on the
operator's own network would otherwise be a way into it (a name that resolves to 10.0.0.5 there,
or rebinds between the two lookups). Plain HTTP goes through the same kind of tunnel, so the proxy
must allow CONNECT to port 80 as well as 443. The proxy's own address is the operator's choice
and is not checked by the policy (a squid on 127.0.0.1 is fine).
"""

from __future__ import annotations

import asyncio
import base64
from urllib.parse import unquote, urlsplit

from adapters.net.http_head import BadHead, read_head
from adapters.net.relay import UPSTREAM_BUFFER, Stream


class UpstreamRefused(Exception):
    """The operator's proxy did not open the tunnel: its status line, or why it could not be asked."""


class UpstreamProxy:
    def __init__(self, url: str) -> None:
        """`url`: `http://[user:password@]host:port` (credentials percent-quoted, as in any URL)."""
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname or parts.port is None:
            raise ValueError("the proxy must be http://[user:password@]host:port")
        self._host, self._port = parts.hostname, parts.port
        self._authorization: str | None = None
        if parts.username is not None:
            pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
            self._authorization = "Basic " + base64.b64encode(pair).decode("ascii")

    @property
    def where(self) -> str:
        """host:port, for messages (never the credentials)."""
        return f"{self._host}:{self._port}"

    async def open(self, address: str, port: int) -> Stream:
        """A tunnel to `address:port` (an address the guard checked). OSError when the proxy
        cannot be reached, UpstreamRefused when it answers anything but 200."""
        reader, writer = await asyncio.open_connection(self._host, self._port, limit=UPSTREAM_BUFFER)
        target = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
        lines = [f"CONNECT {target} HTTP/1.1", f"Host: {target}"]
        if self._authorization is not None:
            lines.append(f"Proxy-Authorization: {self._authorization}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("ascii"))
        try:
            head = await read_head(reader)
        except BadHead as error:
            writer.close()
            raise UpstreamRefused(f"VIDRELAY_PROXY {self.where} answered no HTTP ({error})") from None
        if head is None or head.status != 200:
            writer.close()
            said = " ".join(head.start[1:]) if head is not None else "nothing"
            raise UpstreamRefused(f"VIDRELAY_PROXY {self.where} refused the tunnel: {said}")
        return Stream(reader, writer)
