"""Which IP addresses are on the public internet.

The tables are IANA's special-purpose registries, written out here rather than left to the
`ipaddress` module alone: its tables differ between Python releases (3.11.7 calls 64:ff9b:1::/48,
fec0::/10 and 3fff::/20 global). An address is public only when both agree. Addresses that embed
an IPv4 address (mapped, 6to4, Teredo, IPv4-compatible) are refused outright: a resolver never
returns them for a real site, and a connection to one may reach the embedded IPv4 address. The
well-known NAT64 prefix is the one exception, judged by the IPv4 address it embeds, because on an
IPv6-only network with DNS64 every IPv4-only site resolves to it.
"""

from __future__ import annotations

import ipaddress
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network

_NON_GLOBAL_V4 = tuple(
    IPv4Network(n)
    for n in (
        "0.0.0.0/8",  # "this network"
        "10.0.0.0/8",  # private
        "100.64.0.0/10",  # shared address space (carrier-grade NAT)
        "127.0.0.0/8",  # loopback
        "169.254.0.0/16",  # link-local (cloud metadata lives here)
        "172.16.0.0/12",  # private
        "192.0.0.0/24",  # IETF protocol assignments
        "192.0.2.0/24",  # documentation
        "192.88.99.0/24",  # 6to4 relay anycast (deprecated)
        "192.168.0.0/16",  # private
        "198.18.0.0/15",  # benchmarking
        "198.51.100.0/24",  # documentation
        "203.0.113.0/24",  # documentation
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, and the limited broadcast address
    )
)

_NON_GLOBAL_V6 = tuple(
    IPv6Network(n)
    for n in (
        "::/96",  # unspecified, loopback and the deprecated IPv4-compatible addresses
        "::ffff:0:0/96",  # IPv4-mapped
        "::ffff:0:0:0/96",  # IPv4-translated
        "64:ff9b:1::/48",  # local-use NAT64
        "100::/64",  # discard-only
        "2001::/23",  # IETF protocol assignments (Teredo, ORCHIDs, benchmarking…)
        "2001:db8::/32",  # documentation
        "2002::/16",  # 6to4
        "3fff::/20",  # documentation
        "5f00::/16",  # segment routing SIDs
        "fc00::/7",  # unique local
        "fe80::/10",  # link-local
        "fec0::/10",  # site-local (deprecated)
        "ff00::/8",  # multicast
    )
)

_NAT64 = IPv6Network("64:ff9b::/96")
_GLOBAL_UNICAST_V6 = IPv6Network("2000::/3")


def is_public_address(address: str) -> bool:
    """True for a global unicast address; False for anything else, including text that is no address."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, IPv6Address):
        return _is_public_v6(ip)
    return _is_public_v4(ip)


def _is_public_v4(ip: IPv4Address) -> bool:
    return ip.is_global and not ip.is_multicast and not any(ip in net for net in _NON_GLOBAL_V4)


def _is_public_v6(ip: IPv6Address) -> bool:
    if ip in _NAT64:
        return _is_public_v4(IPv4Address(int(ip) & 0xFFFFFFFF))
    if ip not in _GLOBAL_UNICAST_V6 or any(ip in net for net in _NON_GLOBAL_V6):
        return False
    return ip.is_global and not ip.is_multicast
