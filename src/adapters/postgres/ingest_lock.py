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

from adapters.postgres.connection import DRIVER_ERRORS, unreachable
from adapters.postgres.dsn import check_dsn
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
    def __init__(self, connection: asyncpg.Connection) -> None:
        self._connection = connection
        self.lost = asyncio.Event()
        """Set when the connection holding the lock ended: another ingest may start now."""
        connection.add_termination_listener(lambda _: self.lost.set())

    @classmethod
    async def take(cls, dsn: str) -> IngestLock:
        """The lock, or IngestLocked naming its holder; StoreError when the server cannot be had."""
        check_dsn(dsn)
        name = f"vidrelay ingest {socket.gethostname()} pid {os.getpid()}"
        try:
            connection = await asyncpg.connect(dsn, timeout=10, server_settings={"application_name": name})
        except (*DRIVER_ERRORS, ValueError, OverflowError) as error:
            raise unreachable(dsn, error) from error
        try:
            if await connection.fetchval("SELECT pg_try_advisory_lock($1)", INGEST_LOCK):
                return cls(connection)
            holder = await connection.fetchval(_HOLDER, INGEST_LOCK)
        except DRIVER_ERRORS as error:
            await connection.close()
            raise StoreError(f"PostgreSQL: {error}") from error
        await connection.close()
        raise IngestLocked(
            f"another vidrelay ingest is running on this database ({holder or 'its holder is not visible'});"
            " Telegram hands updates to one poller only: run this one with --role worker"
        )

    async def release(self) -> None:
        if not self._connection.is_closed():
            try:
                await self._connection.close()  # the server drops the lock with the session
            except DRIVER_ERRORS:
                self._connection.terminate()
