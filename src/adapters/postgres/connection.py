"""Connections to PostgreSQL (asyncpg): the operator's DSN checked and masked in every message
(dsn.py), every session bounded in time (limits.py), asyncpg's errors as StoreError.

asyncpg over psycopg 3: on this store's own statements it costs the bot's process about half the
CPU per row and is as fast or faster end to end (bench/pg_drivers.py; figures in the README).
"""

from __future__ import annotations

import contextlib
import socket
from typing import Any, ClassVar, Final

import asyncpg

from adapters.postgres.dsn import check_dsn, masked
from adapters.postgres.errors import CONNECT_ERRORS, as_store_errors
from adapters.postgres.limits import DEFAULT_LIMITS, SessionLimits

APPLICATION_NAME: Final = "vidrelay"


class KeptAliveConnection(asyncpg.Connection):  # type: ignore[misc]  # asyncpg ships no stubs
    """A connection whose socket probes its peer when idle: a server that vanished (a host gone,
    a route dropped) ends the connection in seconds instead of hours.

    asyncpg has no keepalive option; `connection_class` is its hook for connections of our own.
    """

    keepalive_seconds: ClassVar[float] = DEFAULT_LIMITS.keepalive_seconds

    def __init__(self, protocol: Any, transport: Any, *rest: Any, **named: Any) -> None:
        super().__init__(protocol, transport, *rest, **named)
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            _keep_alive(sock, self.keepalive_seconds)


_PROBING: dict[tuple[type[KeptAliveConnection], float], type[KeptAliveConnection]] = {}


def _probing_every(base: type[KeptAliveConnection], seconds: float) -> type[KeptAliveConnection]:
    """`base` with its keepalive set (asyncpg builds connections from a class, not a factory)."""
    made = _PROBING.get((base, seconds))
    if made is None:
        made = _PROBING[(base, seconds)] = type(base.__name__, (base,), {"keepalive_seconds": seconds})
    return made


def _keep_alive(sock: socket.socket, idle_seconds: float) -> None:
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for option, value in (
        ("TCP_KEEPIDLE", idle_seconds),
        ("TCP_KEEPINTVL", max(idle_seconds / 3, 1)),
        ("TCP_KEEPCNT", 3),
    ):
        if hasattr(socket, option):  # Linux names all three; other systems some
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, option), int(value))


def reaching(dsn: str) -> contextlib.AbstractContextManager[None]:
    """Connect errors as one line naming the masked DSN and the driver's reason, as it gave it:
    check_dsn let through only DSNs that asyncpg reads as urllib does, whose parts its errors may
    quote (a host, a port) hold no password, and the server never quotes one."""
    return as_store_errors(f"cannot connect to PostgreSQL at {masked(dsn)}", CONNECT_ERRORS)


async def connect(
    dsn: str,
    limits: SessionLimits = DEFAULT_LIMITS,
    *,
    application_name: str = APPLICATION_NAME,
    connection_class: type[KeptAliveConnection] = KeptAliveConnection,
) -> asyncpg.Connection:
    """One connection of its own (migrations, LISTEN, locks held for a process's lifetime)."""
    check_dsn(dsn)
    with reaching(dsn):
        connection: asyncpg.Connection = await asyncpg.connect(
            dsn,
            timeout=limits.connect_seconds,
            command_timeout=limits.call_seconds,
            server_settings=limits.server_settings(application_name),
            connection_class=_probing_every(connection_class, limits.keepalive_seconds),
        )
    return connection


async def _keep_session(_: asyncpg.Connection) -> None:
    """Pooled connections carry no session state (no LISTEN, no session lock, no SET): skip
    asyncpg's reset query, a round trip on every release."""


async def open_pool(
    dsn: str,
    size: int,
    limits: SessionLimits = DEFAULT_LIMITS,
    *,
    application_name: str = APPLICATION_NAME,
    connection_class: type[KeptAliveConnection] = KeptAliveConnection,
) -> asyncpg.Pool:
    """A pool of `size` connections, all opened now, so a bad DSN fails here and not mid-job."""
    check_dsn(dsn)
    with reaching(dsn):
        pool: asyncpg.Pool = await asyncpg.create_pool(
            dsn,
            min_size=size,
            max_size=size,
            timeout=limits.connect_seconds,
            command_timeout=limits.call_seconds,
            reset=_keep_session,
            server_settings=limits.server_settings(application_name),
            connection_class=_probing_every(connection_class, limits.keepalive_seconds),
        )
    return pool
