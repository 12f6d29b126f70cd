"""One ingest process per database: Telegram hands a bot's updates to one poller only.

The lock is a session-level advisory lock on a connection of its own; the server drops it the
moment that session ends (a crash, a kill -9, a restart), so a dead ingest never blocks the next.
The holder's connection is named after its host and pid, which is how a refusal says who holds it.

The lock is kept, not just taken. Its connection is probed every `PROBE_SECONDS`: a probe that
fails or does not answer within `PROBE_TIMEOUT_SECONDS`, or the connection ending, puts the lock
in doubt (`in_doubt` set, `held` cleared) and the holder must stop polling at once, since the
server may have dropped the session and another ingest may take the lock. The keeper then takes
it again whenever it can (every `RETAKE_SECONDS`), and only then is it `held` again; it never
gives up, so an ingest outlives a restart of the server, a killed backend or a silent network.

Two pollers never overlap: each probe writes the holder's sign of life (`seen_at`, by the
database's clock), and whoever takes the lock from another holder first waits until that holder
must have noticed its doubt and stopped (`TAKEOVER_SECONDS` after its last sign of life). A holder
that let go cleanly leaves no wait behind it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from typing import Final

import asyncpg

from adapters.postgres.connection import connect
from adapters.postgres.errors import DRIVER_ERRORS, as_store_errors
from adapters.postgres.limits import DEFAULT_LIMITS, SessionLimits
from ports.clock import Clock
from ports.errors import StoreError

log = logging.getLogger("vidrelay.postgres")

INGEST_LOCK: Final = 0x7669_6472_0002
"""Beside the migrations' lock (schema.py): "vidr" + 2."""
PROBE_SECONDS: Final = 3.0
PROBE_TIMEOUT_SECONDS: Final = 2.0
TAKEOVER_SECONDS: Final = PROBE_SECONDS + PROBE_TIMEOUT_SECONDS + 3.0
"""The previous holder's last sign of life, plus its longest way to doubt and to stop its poll."""
RETAKE_SECONDS: Final = 2.0
_HOLDER = """
    SELECT a.application_name FROM pg_locks AS l JOIN pg_stat_activity AS a ON a.pid = l.pid
    WHERE l.locktype = 'advisory' AND l.granted AND l.database = (
        SELECT oid FROM pg_database WHERE datname = current_database()
    ) AND ((l.classid::bigint << 32) | l.objid::bigint) = $1
"""
_DB_NOW = "extract(epoch FROM clock_timestamp())::float8"
"""The database's clock as the float `seen_at` keeps: extract() answers numeric (PostgreSQL 14+),
a Decimal in Python, which cannot be subtracted from a float."""
_LAST_HOLDER = f"SELECT holder, seen_at, {_DB_NOW} FROM vidrelay_ingest"  # noqa: S608 - constants
_SIGN_OF_LIFE = f"""
    INSERT INTO vidrelay_ingest (holder, seen_at) VALUES ($1, {_DB_NOW})
    ON CONFLICT (one) DO UPDATE SET holder = EXCLUDED.holder, seen_at = EXCLUDED.seen_at
"""  # noqa: S608 - constants
_LET_GO = "UPDATE vidrelay_ingest SET seen_at = 0 WHERE holder = $1"


class IngestLocked(StoreError):
    """Another ingest process holds the lock."""


class IngestLock:
    def __init__(self, dsn: str, limits: SessionLimits, clock: Clock, name: str) -> None:
        """Use `IngestLock.take`."""
        self._dsn = dsn
        self._limits = limits
        self._clock = clock
        self._name = name
        self._connection: asyncpg.Connection | None = None
        self._keeper: asyncio.Task[None] | None = None
        self.held = asyncio.Event()
        """Set while the lock is known to be ours: polling may run."""
        self.in_doubt = asyncio.Event()
        """Set while it is not: polling must not run."""
        self.in_doubt.set()

    @classmethod
    async def take(cls, dsn: str, limits: SessionLimits = DEFAULT_LIMITS, *, clock: Clock) -> IngestLock:
        """The lock, held and kept; IngestLocked naming its holder when another ingest has it,
        StoreError when the server cannot be had. Returns once polling may start."""
        lock = cls(dsn, limits, clock, f"vidrelay ingest {socket.gethostname()} pid {os.getpid()}")
        connection = await lock._try_take()
        if connection is None:
            holder = await lock._holder() or "its holder is not visible"
            raise IngestLocked(
                f"another vidrelay ingest is running on this database ({holder});"
                " Telegram hands updates to one poller only: run this one with --role worker"
            )
        lock._hold(connection)
        lock._keeper = asyncio.create_task(lock._keep(), name="vidrelay-ingest-lock")
        return lock

    async def _try_take(self) -> asyncpg.Connection | None:
        """A connection holding the lock, once the previous holder must have stopped; None when
        someone holds it. StoreError when the server cannot be had."""
        connection = await connect(self._dsn, self._limits, application_name=self._name)
        try:
            with as_store_errors():
                if not await connection.fetchval("SELECT pg_try_advisory_lock($1)", INGEST_LOCK):
                    connection.terminate()
                    return None
                holder, seen_at, now = await connection.fetchrow(_LAST_HOLDER) or (None, 0.0, 0.0)
                if holder not in (None, self._name) and seen_at + TAKEOVER_SECONDS > now:
                    log.warning("ingest lock taken over: polling starts once the last holder stopped")
                    await self._clock.sleep(seen_at + TAKEOVER_SECONDS - now)
                await connection.execute(_SIGN_OF_LIFE, self._name, timeout=PROBE_TIMEOUT_SECONDS)
        except BaseException:
            connection.terminate()
            raise
        return connection

    async def _holder(self) -> str | None:
        connection = await connect(self._dsn, self._limits)
        try:
            with as_store_errors():
                holder: str | None = await connection.fetchval(_HOLDER, INGEST_LOCK)
                return holder
        finally:
            connection.terminate()

    def _hold(self, connection: asyncpg.Connection) -> None:
        self._connection = connection

        def ended(_: object) -> None:
            if self._connection is connection:  # not an older one, dropped on purpose
                self._doubt("its connection ended")

        connection.add_termination_listener(ended)
        self.in_doubt.clear()
        self.held.set()

    def _doubt(self, why: str) -> None:
        if self.held.is_set():
            # It takes itself again once the database answers: an operator need not act.
            log.warning(
                "the ingest lock is in doubt: polling stops until it is taken again", extra={"error": why}
            )
        self.held.clear()
        self.in_doubt.set()

    async def _keep(self) -> None:
        """Probe while held; once in doubt, take the lock again. Ends only by cancellation."""
        while True:
            try:
                await self._probe_until_doubt()
            except Exception as error:  # noqa: BLE001 - whatever it was, the lock is in doubt
                self._doubt(str(error) or type(error).__name__)
            self._drop_connection()
            await self._take_again()

    async def _probe_until_doubt(self) -> None:
        while self.held.is_set() and self._connection is not None:
            await self._clock.sleep(PROBE_SECONDS)
            if self.held.is_set():
                with as_store_errors("the ingest lock's probe"):
                    await self._connection.execute(_SIGN_OF_LIFE, self._name, timeout=PROBE_TIMEOUT_SECONDS)

    async def _take_again(self) -> None:
        refused = False
        while True:
            try:
                connection = await self._try_take()
            except Exception as error:  # the server is away: try again
                log.warning("cannot take the ingest lock again yet", exc_info=error)
                connection = None
            else:
                if connection is None and not refused:
                    log.warning("the ingest lock is held elsewhere: this ingest waits, not polling")
                refused = connection is None
            if connection is not None:
                log.warning("the ingest lock is ours again: polling resumes")
                self._hold(connection)
                return
            await self._clock.sleep(RETAKE_SECONDS)

    def _drop_connection(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(*DRIVER_ERRORS):
                connection.terminate()  # its state is unknown: the server ends the session in time

    @property
    def backend_pid(self) -> int | None:
        """The server process holding the lock (tests terminate it to end the session)."""
        return None if self._connection is None else self._connection.get_server_pid()

    async def release(self) -> None:
        """Stop keeping the lock and end its session (the server drops the lock with it), saying
        it was let go cleanly so that the next ingest starts at once; within the close bound."""
        if self._keeper is not None:
            self._keeper.cancel()
            await asyncio.gather(self._keeper, return_exceptions=True)
        connection, self._connection = self._connection, None
        self.held.clear()
        self.in_doubt.set()
        if connection is None or connection.is_closed():
            return
        try:
            await connection.execute(_LET_GO, self._name, timeout=self._limits.close_seconds)
            await connection.close(timeout=self._limits.close_seconds)
        except DRIVER_ERRORS:
            connection.terminate()
