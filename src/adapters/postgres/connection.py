"""Connections to PostgreSQL (asyncpg): the operator's DSN checked and masked in every message
(dsn.py); asyncpg's errors as StoreError.

asyncpg over psycopg 3: on this store's own statements it costs the bot's process about half the
CPU per row and is as fast or faster end to end (bench/pg_drivers.py; figures in the README).
"""

from __future__ import annotations

from typing import Final

import asyncpg

from adapters.postgres.dsn import check_dsn, masked
from ports.errors import StoreError

DRIVER_ERRORS: Final = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError)
"""What asyncpg raises for a failed statement, a lost connection or a timeout."""
_CONNECT_ERRORS: Final = (*DRIVER_ERRORS, ValueError, OverflowError)
"""A DSN asyncpg cannot parse raises ValueError (a bad IPv6 host) or OverflowError (a bad port)."""
CONNECT_TIMEOUT_SECONDS: Final = 10.0
APPLICATION_NAME: Final = "vidrelay"


def unreachable(dsn: str, error: BaseException) -> StoreError:
    """One line naming the masked DSN and the driver's reason, as it gave it: check_dsn let
    through only DSNs that asyncpg reads as urllib does, whose parts its errors may quote (a
    host, a port) hold no password, and the server never quotes one."""
    reason = " ".join(str(error).split()) or type(error).__name__
    return StoreError(f"cannot connect to PostgreSQL at {masked(dsn)}: {reason}")


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
