"""The one place where asyncpg's errors become StoreError: every call, connect, lock and listen of
this adapter goes through `as_store_errors`, so no driver exception reaches the core."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Final

import asyncpg

from ports.errors import StoreError

DRIVER_ERRORS: Final = (
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
    OSError,
    TimeoutError,
)
"""What asyncpg raises for a failed statement, a lost connection, a timeout, or a connection
caught in a state it cannot leave ("cannot switch to state 12; another operation is in
progress", seen during a server restart: InternalClientError is neither of the other two)."""
_CALL_ERRORS: Final = (*DRIVER_ERRORS, UnicodeEncodeError)
"""UnicodeEncodeError: a str with a lone surrogate, which no UTF-8 database can hold."""
CONNECT_ERRORS: Final = (*_CALL_ERRORS, ValueError, OverflowError)
"""A DSN asyncpg cannot parse raises ValueError (a bad IPv6 host) or OverflowError (a bad port)."""


def reason(error: BaseException) -> str:
    """The driver's words on one line, or what happened when it had none."""
    if isinstance(error, TimeoutError) and not str(error):
        return "no answer in time"
    return " ".join(str(error).split()) or type(error).__name__


@contextlib.contextmanager
def as_store_errors(
    what: str = "PostgreSQL", errors: tuple[type[BaseException], ...] = _CALL_ERRORS
) -> Iterator[None]:
    """Every driver error raised in the block comes out as StoreError("{what}: {reason}")."""
    try:
        yield
    except errors as error:
        raise StoreError(f"{what}: {reason(error)}") from error
