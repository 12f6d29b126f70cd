"""Which links the bot may fetch: http(s) only, and only hosts on the public internet.

The address check runs on resolved addresses, so a public name pointing at 127.0.0.1 or a
cloud metadata address is refused like the literal would be.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from urllib.parse import urlsplit

from returns.result import Failure, Result, Success

ALLOWED_SCHEMES = frozenset({"http", "https"})


def check_scheme(url: str) -> Result[str, str]:
    """The URL's host when the URL is an http(s) URL with a host; otherwise why not."""
    if any(c.isspace() or not c.isprintable() for c in url):
        return Failure("URL contains spaces or control characters")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return Failure("malformed URL")
    if parts.scheme.lower() not in ALLOWED_SCHEMES:
        return Failure(f"scheme {parts.scheme or '(none)'!r} is not allowed")
    if not host:
        return Failure("URL has no host")
    return Success(host)


def is_public_address(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and (ip.ipv4_mapped or ip.sixtofour or ip.teredo):
        return False
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_unspecified)


def check_addresses(addresses: Sequence[str]) -> Result[None, str]:
    """Refuse unless every address the host resolves to is public."""
    if not addresses:
        return Failure("host does not resolve")
    private = [a for a in addresses if not is_public_address(a)]
    if private:
        return Failure(f"host resolves to a non-public address ({private[0]})")
    return Success(None)
