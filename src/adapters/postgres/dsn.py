"""The operator's PostgreSQL DSN as text: checked before asyncpg sees it, shown only masked.

The mask is placed by parsing the DSN, never by searching the text for the password: a short
password (`p`) or one equal to a word around it (the user name) would otherwise mask every place
it occurs, garble the message, and tell where the password equals what is left.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import parse_qsl, unquote_plus, urlsplit

from ports.errors import StoreError

_SCHEMES: Final = ("postgresql", "postgres")
_MASK: Final = "***"
_SECRET_PARAMETERS: Final = frozenset({"password", "sslpassword"})
_SECRET_KEYWORD: Final = re.compile(r"\b((?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'?|\S+)", re.IGNORECASE)
"""libpq's `key=value` form, which asyncpg does not take but an operator may still write."""


class BadDsn(StoreError):
    """The DSN is not a PostgreSQL URL this adapter can use; the message masks its password."""


def masked(dsn: str) -> str:
    """The DSN with its passwords (the user part's, a `password=` or `sslpassword=` parameter or
    keyword) replaced by ***, everything else as written."""
    scheme, separator, rest = dsn.partition("://")
    if not separator:
        return _SECRET_KEYWORD.sub(rf"\g<1>{_MASK}", dsn)
    user_end = _user_part_end(rest)
    shown_user = ""
    if user_end >= 0:
        user, colon, _password = rest[:user_end].partition(":")
        shown_user, rest = f"{user}{colon and ':' + _MASK}", rest[user_end:]
    before_fragment, hash_sign, fragment = rest.partition("#")
    location, question, query = before_fragment.partition("?")
    return f"{scheme}://{shown_user}{location}{question}{_masked_query(query)}{hash_sign}{fragment}"


def _user_part_end(rest: str) -> int:
    """Where the user part ends (its @), or -1. Normally the last @ of the host part; when an @
    comes after it, a raw /, ? or # in the password has moved urllib's and asyncpg's idea of the
    host, and the mask reaches the last @ of all, to cover every reading."""
    host_part = re.split(r"[/?#]", rest, maxsplit=1)[0]
    return rest.rfind("@") if "@" in rest[len(host_part) :] else host_part.rfind("@")


def _masked_query(query: str) -> str:
    """A field without `=` right after a secret one is the rest of that secret (a raw & in it)."""
    shown: list[str] = []
    hiding = False
    for field in query.split("&") if query else []:
        name, equals, _ = field.partition("=")
        if equals and unquote_plus(name) in _SECRET_PARAMETERS:
            shown.append(f"{name}={_MASK}")
            hiding = True
        elif not (hiding and not equals):
            shown.append(field)
            hiding = False
    return "&".join(shown)


def check_dsn(dsn: str) -> None:
    """BadDsn unless `dsn` is a postgresql:// URL naming a host, which urllib and asyncpg read
    alike: asyncpg would otherwise fill in libpq's defaults (a local server on 5432) for an empty
    or mistyped setting, or connect to a "host" made of a password's tail and echo it back."""
    try:
        parts = urlsplit(dsn)
        parts.port  # noqa: B018 - reading it is what checks its range
    except ValueError as error:
        raise BadDsn(f"{masked(dsn)} is not a valid URL: {error}") from error
    if parts.scheme not in _SCHEMES:
        raise BadDsn(f"{masked(dsn) or '(empty)'} is not a postgresql:// URL")
    if parts.netloc.count("@") > 1 or "@" in parts.path or "#" in dsn:  # a DSN has no use for a #fragment
        raise BadDsn(f"{masked(dsn)} has a raw @, /, ? or # in its user or password: percent-encode it")
    try:
        query = dict(parse_qsl(parts.query, strict_parsing=True)) if parts.query else {}
    except ValueError as error:
        raise BadDsn(f"{masked(dsn)} has a query that is not name=value pairs joined by &") from error
    if not parts.hostname and "host" not in query:
        raise BadDsn(f"{masked(dsn)} names no host")
