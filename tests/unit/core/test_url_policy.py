from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from core.addresses import is_public_address
from core.url_guard import UrlGuard
from core.url_policy import Endpoint, GuardRules, check_addresses, check_scheme, url_endpoint
from tests.support.world import FixedResolver


@pytest.mark.parametrize(
    ("url", "host"),
    [("https://example.com/v", "example.com"), ("http://EXAMPLE.com:8080/x", "example.com")],
)
def test_http_and_https_are_allowed(url: str, host: str) -> None:
    assert check_scheme(url) == Success(host)


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://example.com/x",
        "javascript:alert(1)",
        "https://",
        "http://[::1",
        "gopher://x",
    ],
)
def test_other_schemes_and_hostless_urls_are_refused(url: str) -> None:
    assert isinstance(check_scheme(url), Failure)


# One address inside (and, where it matters, at each edge of) every IANA special-purpose block.
NON_PUBLIC_V4 = [
    "0.0.0.0",  # this network
    "0.255.255.255",
    "10.0.0.0",  # private
    "10.255.255.255",
    "100.64.0.0",  # carrier-grade NAT
    "100.127.255.255",
    "127.0.0.1",  # loopback
    "127.255.255.254",
    "169.254.169.254",  # link-local: the cloud metadata address
    "172.16.0.1",  # private
    "172.31.255.255",
    "192.0.0.9",  # IETF protocol assignments
    "192.0.2.1",  # documentation
    "192.88.99.1",  # 6to4 relay (Python 3.11.7 calls it global)
    "192.168.1.1",  # private
    "198.18.0.1",  # benchmarking
    "198.19.255.255",
    "198.51.100.7",  # documentation
    "203.0.113.9",  # documentation
    "224.0.0.1",  # multicast
    "239.255.255.250",
    "240.0.0.1",  # reserved
    "255.255.255.255",  # broadcast
]
NON_PUBLIC_V6 = [
    "::",  # unspecified
    "::1",  # loopback
    "::7f00:1",  # IPv4-compatible 127.0.0.1 (deprecated)
    "::ffff:127.0.0.1",  # IPv4-mapped
    "::ffff:10.0.0.5",
    "::ffff:8.8.8.8",  # mapped, even of a public address: a resolver never returns one
    "::ffff:0:808:808",  # IPv4-translated
    "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
    "64:ff9b::a00:5",  # NAT64 of 10.0.0.5
    "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
    "64:ff9b:1::1",  # local-use NAT64 (Python 3.11.7 calls it global)
    "100::1",  # discard-only
    "2001::1",  # Teredo
    "2001:db8::1",  # documentation
    "2002:7f00:1::1",  # 6to4 of 127.0.0.1
    "2002:808:808::1",  # 6to4 of a public address: still a tunnel to an embedded IPv4 address
    "3fff::1",  # documentation (Python 3.11.7 calls it global)
    "5f00::1",  # segment routing
    "fc00::1",  # unique local
    "fd12:3456::1",
    "fe80::1",  # link-local
    "fe80::1%eth0",  # … with a zone
    "fec0::1",  # site-local (Python 3.11.7 calls it global)
    "ff02::1",  # multicast
    "ff0e::1",  # global-scope multicast is still multicast
    "4000::1",  # outside 2000::/3: not allocated
]


@pytest.mark.parametrize("address", NON_PUBLIC_V4 + NON_PUBLIC_V6)
def test_non_public_addresses_are_refused(address: str) -> None:
    assert not is_public_address(address)


@pytest.mark.parametrize("text", ["not-an-ip", "", "1.2.3", "256.1.1.1", "[::1]", "::1::2", "8.8.8.8 "])
def test_text_that_is_not_an_address_is_refused(text: str) -> None:
    assert not is_public_address(text)


@pytest.mark.parametrize(
    "address",
    [
        "8.8.8.8",
        "1.1.1.1",
        "93.184.216.34",
        "100.63.255.255",  # just below carrier-grade NAT
        "100.128.0.0",  # just above it
        "172.15.255.255",  # just outside 172.16.0.0/12
        "172.32.0.0",
        "2606:4700:4700::1111",
        "2a00:1450:4001:80b::200e",
        "64:ff9b::808:808",  # NAT64 of 8.8.8.8: how an IPv6-only host with DNS64 reaches IPv4 sites
    ],
)
def test_public_addresses_pass(address: str) -> None:
    assert is_public_address(address)


@given(st.ip_addresses(v=4))
def test_every_ipv4_address_is_judged_as_ipaddress_and_the_iana_table_both_say(address: object) -> None:
    import ipaddress

    ip = ipaddress.IPv4Address(str(address))
    if is_public_address(str(ip)):
        assert ip.is_global
        assert not ip.is_multicast


@given(st.ip_addresses(v=6))
def test_an_ipv6_address_embedding_ipv4_passes_only_through_nat64(address: object) -> None:
    import ipaddress

    ip = ipaddress.IPv6Address(str(address))
    if ip.ipv4_mapped or ip.sixtofour or ip.teredo:
        assert not is_public_address(str(ip))


def test_one_private_address_among_public_ones_refuses_the_host_and_is_named() -> None:
    assert check_addresses(["8.8.8.8", "10.0.0.5"]) == Failure(
        "the link leads to a private address (10.0.0.5)"
    )
    assert check_addresses(["8.8.8.8", "1.1.1.1"]) == Success(None)


def test_a_host_that_resolves_to_nothing_is_refused() -> None:
    assert isinstance(check_addresses([]), Failure)


@given(st.text(max_size=100))
def test_scheme_check_never_raises_and_only_passes_http(url: str) -> None:
    match check_scheme(url):
        case Success(host):
            assert url.lower().startswith(("http:", "https:"))
            assert host
        case Failure(reason):
            assert reason


@pytest.mark.parametrize("url", [" http://example.com", "http://exa\tmple.com", "http://example.com/\x00"])
def test_whitespace_and_control_characters_are_refused(url: str) -> None:
    assert isinstance(check_scheme(url), Failure)


@pytest.mark.parametrize(
    ("url", "endpoint"),
    [
        ("http://example.com/v", Endpoint("example.com", 80)),
        ("https://example.com/v", Endpoint("example.com", 443)),
        ("HTTPS://Example.COM.:8443/v", Endpoint("example.com", 8443)),
        ("http://[::1]:8080/v", Endpoint("::1", 8080)),
        ("http://[0:0::1]/v", Endpoint("::1", 80)),
        ("http://user:pw@127.0.0.1:9/v", Endpoint("127.0.0.1", 9)),
    ],
)
def test_a_url_connects_to_its_host_and_port_with_the_schemes_default(url: str, endpoint: Endpoint) -> None:
    assert url_endpoint(url) == Success(endpoint)


@pytest.mark.parametrize("url", ["http://example.com:99999/", "http://example.com:x/", "ftp://example.com/"])
def test_a_url_without_a_usable_port_or_scheme_has_no_endpoint(url: str) -> None:
    assert isinstance(url_endpoint(url), Failure)


@pytest.mark.parametrize(
    ("text", "endpoint"),
    [
        ("127.0.0.1:8080", Endpoint("127.0.0.1", 8080)),
        (" LocalHost:80 ", Endpoint("localhost", 80)),
        ("[::1]:8443", Endpoint("::1", 8443)),
        ("[0::1]:1", Endpoint("::1", 1)),
        ("media.internal.:9000", Endpoint("media.internal", 9000)),
    ],
)
def test_an_allowlist_entry_is_host_colon_port(text: str, endpoint: Endpoint) -> None:
    assert Endpoint.parse(text) == endpoint


@pytest.mark.parametrize(
    "text",
    ["127.0.0.1", "localhost:", ":80", "host:0", "host:65536", "host:http", "::1:80", "a/b:80", "[zz]:80"],
)
def test_a_bad_allowlist_entry_is_refused_with_the_entry_named(text: str) -> None:
    with pytest.raises(ValueError, match=re.escape(repr(text))):
        Endpoint.parse(text)


ALLOWED = GuardRules([Endpoint("127.0.0.1", 8080), Endpoint("LOCALHOST", 9000), Endpoint("::1", 7000)])


def test_an_allowlisted_endpoint_may_be_private_and_only_on_its_own_port() -> None:
    assert ALLOWED.check("127.0.0.1", 8080, ["127.0.0.1"]) == Success(None)
    assert ALLOWED.check("localhost", 9000, ["127.0.0.1", "::1"]) == Success(None)
    assert ALLOWED.check("[::1]", 7000, ["::1"]) == Success(None)
    assert ALLOWED.check("127.0.0.1", 8081, ["127.0.0.1"]) == Failure(
        "the link leads to a private address (127.0.0.1)"
    )
    assert isinstance(ALLOWED.check("localhost", 8080, ["127.0.0.1"]), Failure)


def test_the_allowlist_names_hosts_not_addresses() -> None:
    # A public name that resolves to an allowlisted address is not on the list: that is the rebinding trick.
    assert isinstance(ALLOWED.check("rebind.example", 8080, ["127.0.0.1"]), Failure)


def test_public_addresses_pass_the_rules_and_an_unresolved_host_does_not() -> None:
    assert GuardRules().check("example.com", 443, ["93.184.216.34"]) == Success(None)
    assert GuardRules().check("example.com", 443, []) == Failure("host does not resolve")
    assert ALLOWED.check("127.0.0.1", 8080, []) == Failure("host does not resolve")


def test_the_all_open_switch_lets_everything_through() -> None:
    rules = GuardRules(allow_private=True)
    assert rules.guard_off
    assert rules.check("169.254.169.254", 80, ["169.254.169.254"]) == Success(None)
    assert not GuardRules().guard_off


async def test_the_url_guard_honours_the_allowlist_on_the_urls_port() -> None:
    resolver = FixedResolver()
    guard = UrlGuard(resolver, GuardRules([Endpoint("internal.test", 8080)]))
    assert await guard.check("http://internal.test:8080/v.mp4") == Success(None)
    assert await guard.check("http://internal.test/v.mp4") == Failure(
        "the link leads to a private address (10.0.0.5)"
    )
    assert await guard.check("https://example.com/v.mp4") == Success(None)
    assert isinstance(await guard.check("file:///etc/passwd"), Failure)
