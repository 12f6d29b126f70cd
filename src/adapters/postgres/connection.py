"""Connections to PostgreSQL (asyncpg): the operator's DSN, masked in every message; asyncpg's
errors as StoreError.

asyncpg over psycopg 3: on this store's own statements it costs the bot's process about half the
CPU per row and is as fast or faster end to end (bench/pg_drivers.py; figures in the README).
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

import asyncpg

from ports.errors import StoreError

DRIVER_ERRORS: Final = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError)
"""What asyncpg raises for a failed statement, a lost connection or a timeout."""
_CONNECT_ERRORS: Final = (*DRIVER_ERRORS, ValueError, OverflowError)
"""A DSN asyncpg cannot parse raises ValueError (a bad IPv6 host) or OverflowError (a bad port)."""
CONNECT_TIMEOUT_SECONDS: Final = 10.0
APPLICATION_NAME: Final = "vidrelay"
_SCHEMES: Final = ("postgresql", "postgres")
_MASK: Final = "***"
_PASSWORD_IN_NETLOC: Final = re.compile(r"(//[^:/@]*:)[^@]*@")
_PASSWORD_KEYWORD: Final = re.compile(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)
"""libpq's `key=value` form, which asyncpg does not take but an operator may still write."""


class BadDsn(StoreError):
    """The DSN is not a PostgreSQL URL this adapter can use; the message masks its password."""


def masked(dsn: str) -> str:
    """The DSN with its password (in the user part, the query or a key=value) replaced by ***."""
    if "://" not in dsn:
        return _PASSWORD_KEYWORD.sub(rf"\g<1>{_MASK}", dsn)
    try:
        parts = urlsplit(dsn)
        netloc = parts.netloc
        if parts.password is not None:
            netloc = netloc.replace(f":{parts.password}@", f":{_MASK}@", 1)
        query = urlencode(
            [(k, _MASK if k == "password" else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)],
            safe="*",
        )
        return urlunsplit(parts._replace(netloc=netloc, query=query))
    except ValueError:
        return _PASSWORD_IN_NETLOC.sub(rf"\g<1>{_MASK}@", dsn)


def check_dsn(dsn: str) -> None:
    """BadDsn unless `dsn` is a postgresql:// URL naming a host: asyncpg would otherwise fill in
    libpq's defaults (a local server on 5432) and an empty or mistyped setting would connect
    somewhere nobody meant."""
    try:
        parts = urlsplit(dsn)
        parts.port  # noqa: B018 - reading it is what checks its range
    except ValueError as error:
        raise BadDsn(f"{masked(dsn)} is not a valid URL: {error}") from error
    if parts.scheme not in _SCHEMES:
        raise BadDsn(f"{masked(dsn) or '(empty)'} is not a postgresql:// URL")
    if not parts.hostname and "host" not in dict(parse_qsl(parts.query)):
        raise BadDsn(f"{masked(dsn)} names no host")


def _secrets_of(dsn: str) -> list[str]:
    try:
        parts = urlsplit(dsn)
    except ValueError:
        return []
    found = [dict(parse_qsl(parts.query)).get("password", ""), parts.password or ""]
    return [s for secret in found if secret for s in {secret, unquote(secret), quote(secret, safe="")}]


def scrub(message: str, dsn: str) -> str:
    """`message` with any password of `dsn` masked (drivers may echo what they were given)."""
    for secret in _secrets_of(dsn):
        message = message.replace(secret, _MASK)
    return message


def unreachable(dsn: str, error: BaseException) -> StoreError:
    reason = " ".join(str(error).split()) or type(error).__name__
    return StoreError(scrub(f"cannot connect to PostgreSQL at {masked(dsn)}: {reason}", dsn))


async def connect(dsn: str, timeout: float = CONNECT_TIMEOUT_SECONDS) -> asyncpg.Connection:
    """One connection of its own (migrations, LISTEN, locks held for a process's lifetime)."""
    check_dsn(dsn)
    try:
        connection: asyncpg.Connection = await asyncpg.connect(
            dsn, timeout=timeout, server_settings={"application_name": APPLICATION_NAME}
        )
    except _CONNECT_ERRORS as error:
        raise unreachable(dsn, error) from error
    return connection


async def _keep_session(_: asyncpg.Connection) -> None:
    """Pooled connections carry no session state (no LISTEN, no session lock, no SET): skip
    asyncpg's reset query, a round trip on every release."""


async def open_pool(dsn: str, size: int, timeout: float = CONNECT_TIMEOUT_SECONDS) -> asyncpg.Pool:
    """A pool of `size` connections, all opened now, so a bad DSN fails here and not mid-job."""
    check_dsn(dsn)
    try:
        pool: asyncpg.Pool = await asyncpg.create_pool(
            dsn,
            min_size=size,
            max_size=size,
            timeout=timeout,
            reset=_keep_session,
            server_settings={"application_name": APPLICATION_NAME},
        )
    except _CONNECT_ERRORS as error:
        raise unreachable(dsn, error) from error
    return pool
