"""The pool as the per-port classes use it: every call bounded, its errors as StoreError.

A call the server does not answer within the session's bound fails with StoreError, and its
connection is dropped rather than returned: its state is unknown (a statement may still run, a
cancel may never be acknowledged), and waiting for it to settle would be the unbounded wait this
module exists to prevent. The pool's other connections are renewed at their next use, since they
most likely went the same way. An error the server reported leaves the connection usable.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeAlias, TypeVar

import asyncpg

from adapters.postgres.errors import DRIVER_ERRORS, as_store_errors
from adapters.postgres.limits import DEFAULT_LIMITS, SessionLimits

Row: TypeAlias = Sequence[Any]
"""An asyncpg Record: indexed and unpacked like a tuple."""
T = TypeVar("T")


def affected(status: str) -> int:
    """Rows a statement touched, from its command tag ("UPDATE 3", "INSERT 0 1")."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class Database:
    def __init__(self, pool: asyncpg.Pool, limits: SessionLimits = DEFAULT_LIMITS) -> None:
        self.pool = pool
        self.limits = limits

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        rows: list[Row] = await self._call(lambda c: c.fetch(sql, *args))
        return rows

    async def fetchrow(self, sql: str, *args: Any) -> Row | None:
        row: Row | None = await self._call(lambda c: c.fetchrow(sql, *args))
        return row

    async def fetchval(self, sql: str, *args: Any) -> Any:
        return await self._call(lambda c: c.fetchval(sql, *args))

    async def execute(self, sql: str, *args: Any) -> int:
        """Run one statement; how many rows it touched."""
        status: str = await self._call(lambda c: c.execute(sql, *args))
        return affected(status)

    async def _call(self, work: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
        async with self._connection() as connection:
            return await work(connection)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[asyncpg.Connection]:
        """One connection in one transaction: committed when the block ends, else rolled back."""
        async with self._connection() as connection, connection.transaction():
            yield connection

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[asyncpg.Connection]:
        """A pooled connection for one bounded use (the block, its acquire and its release)."""
        with as_store_errors():
            async with asyncio.timeout(self.limits.call_seconds):
                connection = await self.pool.acquire()
                try:
                    yield connection
                except BaseException as error:
                    if not isinstance(error, asyncpg.PostgresError):
                        connection.terminate()  # its state is unknown: never wait for it to settle
                        if isinstance(error, (*DRIVER_ERRORS, asyncio.CancelledError)):
                            # The way to the server failed: the idle connections went the same way,
                            # most likely. Each is replaced at its next use rather than failing it.
                            await self.pool.expire_connections()
                    raise
                finally:
                    await self.pool.release(connection)

    async def close(self) -> None:
        """Close the pool within the close bound; connections that do not close in time are cut."""
        try:
            async with asyncio.timeout(self.limits.close_seconds):
                await self.pool.close()
        except DRIVER_ERRORS:
            self.pool.terminate()


async def finish(task: asyncio.Task[Any], within: float) -> None:
    """Wait for `task` for at most `within` seconds, then cancel it: a shutdown step has an end."""
    await asyncio.wait({task}, timeout=within)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


class PostgresAccess:
    """Base of the per-port classes of PostgresStore."""

    _db: Database
    _node: str
    _fair: bool
    """The queue's order: fair (ports.queue), or first-in, first-out (a comparison)."""
    """This worker's name for the bytes in its own blob folder (see blobs.py)."""
