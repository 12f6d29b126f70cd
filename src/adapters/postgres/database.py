"""The pool as the per-port classes use it: every driver error comes out as StoreError."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeAlias

import asyncpg

from adapters.postgres.connection import DRIVER_ERRORS
from ports.errors import StoreError

Row: TypeAlias = Sequence[Any]
"""An asyncpg Record: indexed and unpacked like a tuple."""
_ERRORS = (*DRIVER_ERRORS, UnicodeEncodeError)
"""UnicodeEncodeError: a str with a lone surrogate, which no UTF-8 database can hold."""


def _store_error(error: BaseException) -> StoreError:
    return StoreError(f"PostgreSQL: {' '.join(str(error).split()) or type(error).__name__}")


def affected(status: str) -> int:
    """Rows a statement touched, from its command tag ("UPDATE 3", "INSERT 0 1")."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class Database:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        try:
            rows: list[Row] = await self.pool.fetch(sql, *args)
        except _ERRORS as error:
            raise _store_error(error) from error
        return rows

    async def fetchrow(self, sql: str, *args: Any) -> Row | None:
        try:
            row: Row | None = await self.pool.fetchrow(sql, *args)
        except _ERRORS as error:
            raise _store_error(error) from error
        return row

    async def fetchval(self, sql: str, *args: Any) -> Any:
        try:
            return await self.pool.fetchval(sql, *args)
        except _ERRORS as error:
            raise _store_error(error) from error

    async def execute(self, sql: str, *args: Any) -> int:
        """Run one statement; how many rows it touched."""
        try:
            status: str = await self.pool.execute(sql, *args)
        except _ERRORS as error:
            raise _store_error(error) from error
        return affected(status)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[asyncpg.Connection]:
        """One connection in one transaction: committed when the block ends, else rolled back."""
        try:
            async with self.pool.acquire() as connection, connection.transaction():
                yield connection
        except _ERRORS as error:
            raise _store_error(error) from error


class PostgresAccess:
    """Base of the per-port classes of PostgresStore."""

    _db: Database
    _node: str
    _fair: bool
    """The queue's order: fair (ports.queue), or first-in, first-out (a comparison)."""
    """This worker's name for the bytes in its own blob folder (see blobs.py)."""
