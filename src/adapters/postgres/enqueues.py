"""Enqueues share round trips: the jobs submitted while the previous batch's round trip runs (or
in the same turn of the event loop) are inserted by one statement, committed once.

A burst of links is many handlers each awaiting its own enqueue; one job row is microseconds of
the server's work, while its round trip and its commit's WAL flush are most of the rest. One
statement per batch makes those a batch's cost, not a job's (bench/pg_throughput.py).

A batch answers as its enqueues would one after another, in the order they were submitted: ids
ascend in that order, one requester's rows take consecutive turns (fair_order.py), and of two
enqueues guarded by the same message and link only the first becomes a job. A lone enqueue runs
its own statement (jobs.py). Should the server refuse a batch's statement (a row it cannot hold),
nothing of it was written: each of its enqueues runs again alone, so the refused one fails alone.
A round trip that failed otherwise (the connection lost, no answer in time) fails every caller of
the batch with StoreError, as each one's own call would have.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Final

import asyncpg

from adapters.postgres.database import Database, finish
from adapters.postgres.new_jobs import MAX_BATCH, NEW_JOBS, Values
from ports.errors import StoreError
from ports.jobs import HandledUrlGuard

log = logging.getLogger("vidrelay.postgres")

Alone = Callable[[Values, HandledUrlGuard | None], Awaitable[int | None]]

_NOT_A_REFUSAL: Final = frozenset({"08", "53", "57", "58", "XX"})
"""SQLSTATE classes of a lost connection, a server stopping or out of resources, an internal
error: whether the statement committed is not known from them."""


@dataclass(slots=True)
class _Asked:
    values: Values
    guard: HandledUrlGuard | None
    future: asyncio.Future[int | None]


class EnqueueBatcher:
    def __init__(self, db: Database, alone: Alone) -> None:
        """`alone`: one enqueue's own statement (a lone enqueue, and each after a refusal)."""
        self._db = db
        self._alone = alone
        self._next: list[_Asked] = []
        self._runner: asyncio.Task[None] | None = None

    async def enqueue(self, values: Values, guard: HandledUrlGuard | None) -> int | None:
        """The new job's id; None when its guard says the link was already handled."""
        future: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._next.append(_Asked(values, guard, future))
        # A runner that saw nothing left has returned, and is done, within that same step.
        if self._runner is None or self._runner.done():
            self._runner = asyncio.create_task(self._run(), name="vidrelay-pg-enqueues")
        return await future

    async def close(self) -> None:
        """Let the batches already submitted finish, for at most one call's bound."""
        if self._runner is not None:
            await finish(self._runner, self._db.limits.call_seconds)

    async def _run(self) -> None:
        await asyncio.sleep(0)  # whoever submits in this same turn joins the batch
        while self._next:
            batch, self._next = self._next[:MAX_BATCH], self._next[MAX_BATCH:]
            try:
                await (self._each_alone(batch) if len(batch) == 1 else self._together(batch))
            except asyncio.CancelledError:  # the store is closing: nobody is left waiting
                _fail(batch + self._next, StoreError("the PostgreSQL store is closed"))
                self._next = []
                raise
            except Exception as error:  # a bug of ours, or the driver's: its callers hear of it
                log.exception("postgres: an enqueues round trip failed")
                _fail(batch, StoreError(str(error) or type(error).__name__))

    async def _together(self, batch: Sequence[_Asked]) -> None:
        try:
            rows = await self._db.fetch(NEW_JOBS, *_columns(batch))
        except StoreError as error:
            if refused(error):
                await self._each_alone(batch)
                return
            _fail(batch, StoreError(str(error)))
            return
        for asked, row in zip(batch, rows, strict=True):
            if not asked.future.done():
                asked.future.set_result(None if row[0] is None else int(row[0]))

    async def _each_alone(self, batch: Sequence[_Asked]) -> None:
        for asked in batch:
            if asked.future.done():  # its caller went away before its row was written
                continue
            try:
                job_id = await self._alone(asked.values, asked.guard)
            except Exception as error:  # noqa: BLE001 - its own caller hears it
                if not asked.future.done():
                    asked.future.set_exception(error)
            else:
                if not asked.future.done():
                    asked.future.set_result(job_id)


def refused(error: StoreError) -> bool:
    """The server refused the statement, so nothing of it was written; or it never left (a value
    the driver cannot encode)."""
    cause = error.__cause__
    if isinstance(cause, asyncpg.PostgresError):
        return str(cause.sqlstate)[:2] not in _NOT_A_REFUSAL
    # asyncpg's own DataError (an InterfaceError and a ValueError): an argument it cannot encode.
    return isinstance(cause, UnicodeEncodeError) or (
        isinstance(cause, asyncpg.InterfaceError) and isinstance(cause, ValueError)
    )


def _fail(batch: Sequence[_Asked], error: StoreError) -> None:
    for asked in batch:
        if not asked.future.done():
            asked.future.set_exception(error)


def _columns(batch: Sequence[_Asked]) -> list[list[object]]:
    """The statement's 13 arrays: the jobs' values, then each one's guard (NULLs: none)."""
    rows = [(*asked.values, *_guard_values(asked.guard)) for asked in batch]
    return [list(column) for column in zip(*rows, strict=True)]


def _guard_values(guard: HandledUrlGuard | None) -> tuple[object, object, object]:
    if guard is None:
        return None, None, None
    return guard.chat_id, guard.message_id, guard.url
