from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from core.url_policy import check_addresses, check_scheme, is_public_address


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


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "0.0.0.0",
        "224.0.0.1",
        "240.0.0.1",
        "100.64.0.1",
        "::1",
        "::",
        "fe80::1",
        "fc00::1",
        "ff02::1",
        "::ffff:8.8.8.8",
        "::ffff:127.0.0.1",
        "2002:7f00:1::1",
        "not-an-ip",
    ],
)
def test_non_public_addresses_are_refused(address: str) -> None:
    assert not is_public_address(address)


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"])
def test_public_addresses_pass(address: str) -> None:
    assert is_public_address(address)


def test_one_private_address_among_public_ones_refuses_the_host() -> None:
    assert isinstance(check_addresses(["8.8.8.8", "10.0.0.1"]), Failure)
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
