"""Which links the bot may fetch, and where it may connect for them: http(s) only, and only hosts
on the public internet — unless the operator named a private host:port (the allowlist) or turned
the guard off.

The same decision serves the user's URL (checked before a job is queued and again before it runs)
and every connection yt-dlp or ffmpeg makes for it (checked by the guard's proxy). It is made on
resolved addresses, so a public name pointing at 127.0.0.1 or a cloud metadata address is
refused like the literal would be.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from returns.result import Failure, Result, Success

from core import texts
from core.addresses import is_public_address
from core.texts.phrase import Phrase
from ports.net import EgressPolicy

ALLOWED_SCHEMES = frozenset({"http", "https"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_HOST_NAME = re.compile(r"[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?")


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A host as requests name it (lower case, no brackets, IP literals in canonical form) and a port."""

    host: str
    port: int

    @classmethod
    def of(cls, host: str, port: int) -> Endpoint:
        return cls(normalize_host(host), port)

    @classmethod
    def parse(cls, text: str) -> Endpoint:
        """`host:port` or `[v6]:port`; ValueError with the reason when it is neither."""
        host, sep, port = text.strip().rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{text.strip()!r} is not host:port")
        if ":" in host and not (host.startswith("[") and host.endswith("]")):
            raise ValueError(f"{text.strip()!r}: write an IPv6 address in brackets, [::1]:8080")
        endpoint = cls.of(host, int(port))
        bracketed = host.startswith("[")
        if not (_is_ip(endpoint.host) or (not bracketed and _HOST_NAME.fullmatch(endpoint.host))):
            raise ValueError(f"{text.strip()!r}: {host!r} is not a host name")
        return endpoint


def normalize_host(host: str) -> str:
    bare = host.strip().strip("[]").rstrip(".").lower()
    try:
        return ipaddress.ip_address(bare).compressed
    except ValueError:
        return bare


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def check_scheme(url: str) -> Result[str, str]:
    """The URL's host when the URL is an http(s) URL with a host; otherwise why not."""
    return url_endpoint(url).map(lambda endpoint: endpoint.host)


def url_endpoint(url: str) -> Result[Endpoint, str]:
    """Where a request for `url` connects, when it is an http(s) URL with a host; otherwise why not."""
    if any(c.isspace() or not c.isprintable() for c in url):
        return Failure(Phrase(texts.URL_UNPRINTABLE))
    try:
        parts = urlsplit(url)
        host = parts.hostname
        port = parts.port
    except ValueError:
        return Failure(Phrase(texts.URL_MALFORMED))
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        return Failure(Phrase(texts.URL_SCHEME, scheme=parts.scheme or Phrase(texts.URL_NO_SCHEME)))
    if not host:
        return Failure(Phrase(texts.URL_NO_HOST))
    return Success(Endpoint.of(host, port if port is not None else _DEFAULT_PORTS[scheme]))


def check_addresses(addresses: Sequence[str]) -> Result[None, str]:
    """Refuse unless every address the host resolves to is public."""
    if not addresses:
        return Failure(Phrase(texts.URL_UNRESOLVED))
    private = [a for a in addresses if not is_public_address(a)]
    if private:
        return Failure(Phrase(texts.URL_PRIVATE, address=private[0]))
    return Success(None)


class GuardRules(EgressPolicy):
    """Public addresses always; the allowlisted endpoints at any address; everything when the guard is off."""

    def __init__(self, allowlist: Iterable[Endpoint] = (), *, allow_private: bool = False) -> None:
        self._allowlist = frozenset(Endpoint.of(e.host, e.port) for e in allowlist)
        self._allow_private = allow_private

    @property
    def guard_off(self) -> bool:
        return self._allow_private

    def check(self, host: str, port: int, addresses: Sequence[str]) -> Result[None, str]:
        if self._allow_private:
            return Success(None)
        if not addresses:
            return Failure(Phrase(texts.URL_UNRESOLVED))
        if Endpoint.of(host, port) in self._allowlist:
            return Success(None)
        return check_addresses(addresses)
