"""One ingest process per database: Telegram hands a bot's updates to one poller only.

The lock is a session-level advisory lock on a connection of its own, held for the process's
lifetime; the server drops it the moment that connection ends (a crash, a kill -9), so a dead
ingest never blocks the next. The holder's connection is named after its host and pid, which is
how the refusal can say who holds it.
"""

from __future__ import annotations

import asyncio
import os
import socket
from typing import Final

import asyncpg

from adapters.postgres.connection import connect
from adapters.postgres.errors import DRIVER_ERRORS, as_store_errors
from adapters.postgres.limits import DEFAULT_LIMITS, SessionLimits
from ports.errors import StoreError

INGEST_LOCK: Final = 0x7669_6472_0002
"""Beside the migrations' lock (schema.py): "vidr" + 2."""
_HOLDER = """
    SELECT a.application_name FROM pg_locks AS l JOIN pg_stat_activity AS a ON a.pid = l.pid
    WHERE l.locktype = 'advisory' AND l.granted AND l.database = (
        SELECT oid FROM pg_database WHERE datname = current_database()
    ) AND ((l.classid::bigint << 32) | l.objid::bigint) = $1
"""


class IngestLocked(StoreError):
    """Another ingest process holds the lock."""


class IngestLock:
    def __init__(self, connection: asyncpg.Connection, limits: SessionLimits = DEFAULT_LIMITS) -> None:
        self._connection = connection
        self._limits = limits
        self.lost = asyncio.Event()
        """Set when the connection holding the lock ended: another ingest may start now."""
        connection.add_termination_listener(lambda _: self.lost.set())

    @classmethod
    async def take(cls, dsn: str, limits: SessionLimits = DEFAULT_LIMITS) -> IngestLock:
        """The lock, or IngestLocked naming its holder; StoreError when the server cannot be had."""
        name = f"vidrelay ingest {socket.gethostname()} pid {os.getpid()}"
        connection = await connect(dsn, limits, application_name=name)
        try:
            with as_store_errors():
                if await connection.fetchval("SELECT pg_try_advisory_lock($1)", INGEST_LOCK):
                    return cls(connection, limits)
                holder = await connection.fetchval(_HOLDER, INGEST_LOCK)
        except BaseException:
            connection.terminate()
            raise
        connection.terminate()
        raise IngestLocked(
            f"another vidrelay ingest is running on this database ({holder or 'its holder is not visible'});"
            " Telegram hands updates to one poller only: run this one with --role worker"
        )

    async def release(self) -> None:
        """End the lock's session (the server drops the lock with it), within the close bound."""
        if not self._connection.is_closed():
            try:
                await self._connection.close(timeout=self._limits.close_seconds)
            except DRIVER_ERRORS:
                self._connection.terminate()
