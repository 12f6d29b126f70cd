"""LISTEN/NOTIFY: enqueues announced on one channel, idle workers of every process woken by it.

Announcing happens after the commit: this store's own idle workers are woken at once, in the same
turn, and the others by a NOTIFY whose payload is this store's token, which its own listener
ignores (hearing itself would wake its workers a second time, a few milliseconds later, for
claims that find nothing). The NOTIFY goes from a connection of the pool, coalesced: at most one
is in flight per process, and one more follows when work was announced meanwhile. Inside
the writing transaction, NOTIFY would hold the server's notify-queue lock across the commit's
fsync and so serialize every enqueue on the server. Listening uses a connection of its own; when
it dies (a restart of the server, a proxy that cut it, a silent network), the listener notices
through the connection's end or a failed probe, reconnects with backoff, and wakes everybody
once to catch up on what it missed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Final

import asyncpg

from adapters.postgres.connection import APPLICATION_NAME, connect
from adapters.postgres.database import Database, finish
from adapters.postgres.errors import DRIVER_ERRORS, as_store_errors
from adapters.postgres.limits import DEFAULT_LIMITS, SessionLimits
from ports.clock import Clock
from ports.notices import WorkNotices

log = logging.getLogger("vidrelay.postgres")

CHANNEL: Final = "vidrelay_work"
QUICK_SUFFIX: Final = "+quick"
"""On a work announcement's payload: the work is a quick row, for the quick lanes."""
CANCEL_CHANNEL: Final = "vidrelay_cancel"
"""A held row was marked cancelled (ports.cancels): every process checks its own leases."""
PROBE_SECONDS: Final = 30.0
"""How often an idle listening connection proves it is still there."""
_BACKOFF_FIRST, _BACKOFF_CAP = 0.1, 1.0
"""Capped low: the listening connection is what shows other processes this one is alive between
its other calls (presence.py), so it comes back within a second of the server."""


class WorkNotifier:
    def __init__(
        self,
        db: Database,
        token: str,
        *,
        wake_here: Callable[[], None],
        quick_here: Callable[[], None],
        check_here: Callable[[], None],
    ) -> None:
        self._db = db
        self._token = token
        self._wake_here = wake_here
        self._quick_here = quick_here
        self._check_here = check_here
        self._sending: asyncio.Task[None] | None = None
        self._again = False
        self._cancels: set[asyncio.Task[None]] = set()

    def announce(self) -> None:
        """Work was committed: wake this store's workers now, and let the other processes know
        (soon, at most one NOTIFY in flight)."""
        self._wake_here()
        if self._sending is not None and not self._sending.done():
            self._again = True
            return
        self._sending = asyncio.create_task(self._send(), name="vidrelay-pg-notify")

    def announce_quick(self) -> None:
        """A quick row was committed (a cache hit): the quick lanes here and elsewhere look now,
        with a NOTIFY of its own rather than one coalesced behind others."""
        self._wake_here()
        self._quick_here()
        self._send_now(CHANNEL, f"{self._token}{QUICK_SUFFIX}")

    def announce_cancel(self) -> None:
        """A held row was marked cancelled: its holder, here or elsewhere, checks now. Rare
        enough to need no coalescing; a lost NOTIFY leaves the holder's next heartbeat."""
        self._check_here()
        self._send_now(CANCEL_CHANNEL, self._token)

    def _send_now(self, channel: str, payload: str) -> None:
        task = asyncio.create_task(self._notify(channel, payload), name=f"vidrelay-pg-{channel}")
        self._cancels.add(task)
        task.add_done_callback(self._cancels.discard)

    async def _notify(self, channel: str, payload: str) -> None:
        try:
            await self._db.execute("SELECT pg_notify($1, $2)", channel, payload)
        except Exception as error:  # a background task: it logs and ends
            log.warning("postgres: could not announce on %s", channel, exc_info=error)

    async def _send(self) -> None:
        while True:
            self._again = False
            try:
                await self._db.execute("SELECT pg_notify($1, $2)", CHANNEL, self._token)
            except Exception as error:  # a background task: it logs and ends
                # The others find the work when their timers fire: a lost wake-up delays, never loses.
                log.warning("postgres: could not announce new work", exc_info=error)
            if not self._again:
                return

    async def close(self) -> None:
        """Let the announcement in flight go out, for at most one call's bound."""
        if self._sending is not None:
            await finish(self._sending, self._db.limits.call_seconds)
        for sending in list(self._cancels):
            await finish(sending, self._db.limits.call_seconds)


class WorkListener(WorkNotices):
    def __init__(
        self,
        dsn: str,
        clock: Clock,
        token: str,
        probe_seconds: float = PROBE_SECONDS,
        limits: SessionLimits = DEFAULT_LIMITS,
        application_name: str = APPLICATION_NAME,
    ) -> None:
        self._dsn = dsn
        self._limits = limits
        self._application_name = application_name
        self.token = token
        """What this store's own NOTIFYs carry: not a wake-up for its own workers."""
        self._clock = clock
        self._probe_seconds = probe_seconds
        self._wakes: list[Callable[[], None]] = []
        self._checks: list[Callable[[], None]] = []
        self._quick_wakes: list[Callable[[], None]] = []
        self._task: asyncio.Task[None] | None = None
        self._connection: asyncpg.Connection | None = None
        self.subscriptions = 0
        """How many times a LISTEN was (re)established: for tests and logs."""

    def on_work(self, wake: Callable[[], None]) -> None:
        self._wakes.append(wake)
        self._listen()

    def on_cancel(self, check: Callable[[], None]) -> None:
        self._checks.append(check)
        self._listen()

    def on_quick_work(self, wake: Callable[[], None]) -> None:
        self._quick_wakes.append(wake)
        self._listen()

    def _listen(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._listen_forever(), name="vidrelay-pg-listen")

    def wake_all(self) -> None:
        _call_each(self._wakes, "wake-up")

    def check_all(self) -> None:
        _call_each(self._checks, "cancel check")

    def quick_all(self) -> None:
        _call_each(self._quick_wakes, "quick wake-up")

    def _on_notice(self, _connection: object, _pid: int, _channel: str, payload: str) -> None:
        sender, quick = payload.removesuffix(QUICK_SUFFIX), payload.endswith(QUICK_SUFFIX)
        if sender != self.token:  # our own announcement woke our workers already
            self.wake_all()
            if quick:
                self.quick_all()

    def _on_cancel_notice(self, _connection: object, _pid: int, _channel: str, payload: str) -> None:
        if payload != self.token:  # our own cancel checked here already
            self.check_all()

    async def _listen_forever(self) -> None:
        """Never ends but by cancellation: whatever goes wrong, it reconnects with a backoff."""
        backoff = _BACKOFF_FIRST
        while True:
            try:
                await self._listen_once()
                backoff = _BACKOFF_FIRST  # it was listening: the next try is at once
                continue
            except Exception as error:  # driver errors, and anything else: go on
                log.warning("postgres: cannot listen for work (retry in %.1fs)", backoff, exc_info=error)
            await self._clock.sleep(backoff)
            backoff = min(backoff * 2, _BACKOFF_CAP)

    async def _listen_once(self) -> None:
        """Listen on one connection until it ends or stops answering."""
        lost = asyncio.Event()
        connection = await connect(self._dsn, self._limits, application_name=self._application_name)
        try:
            with as_store_errors():
                connection.add_termination_listener(lambda _, ended=lost: ended.set())
                await connection.add_listener(CHANNEL, self._on_notice)
                await connection.add_listener(CANCEL_CHANNEL, self._on_cancel_notice)
                self._connection = connection
                self.subscriptions += 1
                if self.subscriptions > 1:
                    log.warning("postgres: listening for work again; catching up")
                self.wake_all()  # whatever was announced while nobody listened
                self.quick_all()
                self.check_all()
                await self._until_lost(connection, lost)
        finally:
            self._connection = None
            with contextlib.suppress(*DRIVER_ERRORS):
                connection.terminate()

    async def _until_lost(self, connection: asyncpg.Connection, lost: asyncio.Event) -> None:
        """Return when the connection ended or stopped answering."""
        while not lost.is_set():
            waiting = asyncio.create_task(lost.wait())
            sleeping = asyncio.create_task(self._clock.sleep(self._probe_seconds))
            try:
                await asyncio.wait({waiting, sleeping}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiting.cancel()
                sleeping.cancel()
            if not lost.is_set():
                await connection.fetchval("SELECT 1", timeout=self._limits.call_seconds)

    @property
    def backend_pid(self) -> int | None:
        """The server process serving the LISTEN (tests terminate it to cut the connection)."""
        return None if self._connection is None else self._connection.get_server_pid()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None


def _call_each(callbacks: list[Callable[[], None]], what: str) -> None:
    for callback in list(callbacks):
        try:
            callback()
        except Exception:
            log.exception("postgres: a %s callback failed", what)
