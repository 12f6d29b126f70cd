"""The stores' own clocks, set by a test: leases are computed and judged by the store's clock
(ports/queue.py), so a test that drives time drives that clock too.

SQLite reads its host's clock in SQL (`julianday('now')`); a connection of the test's own
overrides that function, as SQLite lets an application do. PostgreSQL reads `vidrelay_now()`;
the test replaces that function from a connection of its own, as any change to the database is
made from outside. `Synced` keeps a store's clock at every `now` its callers pass: the world of
machines whose clocks agree, which most tests describe; a test of skew uses the store itself.
"""

from __future__ import annotations

import inspect
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg

JULIAN_EPOCH = 2440587.5
"""julianday() of 1970-01-01T00:00Z."""


class SqliteClock:
    """The clock of SQLite connections made with `connection_class`, at `now` until set."""

    def __init__(self, now: float) -> None:
        self.now = now
        real = sqlite3.connect(":memory:", check_same_thread=False)
        clock = self

        def julianday(value: object) -> float | None:
            if value == "now":
                return clock.now / 86400.0 + JULIAN_EPOCH
            answer: float | None = real.execute("SELECT julianday(?)", (value,)).fetchone()[0]
            return answer

        class PinnedConnection(sqlite3.Connection):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                self.create_function("julianday", 1, julianday)

        self.connection_class = PinnedConnection

    async def set(self, now: float) -> None:
        self.now = now


class PostgresClock:
    """The database's `vidrelay_now()`, replaced by a function that answers `now`."""

    def __init__(self, dsn: str) -> None:
        self._dsn = dsn
        self.now: float | None = None

    async def set(self, now: float) -> None:
        if now == self.now:
            return
        other = await asyncpg.connect(self._dsn)
        try:
            await other.execute(
                "CREATE OR REPLACE FUNCTION vidrelay_now() RETURNS double precision LANGUAGE sql STABLE"
                f" AS $$ SELECT {float(now)!r}::double precision $$"
            )
        finally:
            await other.close()
        self.now = now


SetClock = Callable[[float], Awaitable[None]]


class Synced:
    """`store`, with its clock moved to the `now` of every call that passes one."""

    def __init__(self, store: Any, set_clock: SetClock) -> None:
        self._store = store
        self._set_clock = set_clock

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._store, name)
        if not inspect.iscoroutinefunction(method):
            return method
        signature = inspect.signature(method)
        if "now" not in signature.parameters:
            return method

        async def synced(*args: Any, **kwargs: Any) -> Any:
            await self._set_clock(signature.bind(*args, **kwargs).arguments["now"])
            return await method(*args, **kwargs)

        return synced
