"""Short MACs over a few fields, for data the bot hands out and later reads back from a client.

HMAC-SHA256 truncated to 96 bits: a forger gets one answer per update, so 2^96 guesses are out of
reach, and the tag fits Telegram's 64-byte fields as 16 base64url characters.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

TAG_BYTES = 12
TAG_CHARS = 16
"""base64url of TAG_BYTES, without padding (12 bytes need none)."""


def derive_key(secret: bytes, purpose: str) -> bytes:
    """One key per purpose, so a tag made for a button never verifies as an inline result's."""
    return hmac.new(secret, f"vidrelay/{purpose}".encode(), hashlib.sha256).digest()


def tag(key: bytes, *fields: str | int) -> str:
    digest = hmac.new(key, b"".join(_framed(field) for field in fields), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:TAG_BYTES]).decode("ascii")


def tag_matches(key: bytes, given: str, *fields: str | int) -> bool:
    """Constant-time; `given` that is not ASCII never matches (compare_digest would refuse it)."""
    if not given.isascii():
        return False
    return hmac.compare_digest(tag(key, *fields), given)


def _framed(field: str | int) -> bytes:
    """Length-prefixed, so ("ab", "c") and ("a", "bc") sign differently. Lone surrogates (a
    hostile client's text) are encoded rather than refused: signing is total."""
    data = str(field).encode("utf-8", "surrogatepass")
    return len(data).to_bytes(4, "big") + data
