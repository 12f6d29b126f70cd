"""The single path to the SQLite connection, with group commit.

Every operation of the store is a function run on aiosqlite's connection thread. A writer task
takes every operation waiting and runs them in one hop as one transaction, each inside its own
SAVEPOINT: a failing operation rolls back alone and gets its own exception, the others commit
together. So transactions never interleave across coroutines, and writes that arrive together
share one commit (one fsync at synchronous=FULL) without weakening any guarantee: nobody hears
"done" before the transaction holding their change is committed.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

import aiosqlite

from ports.errors import StoreError

T = TypeVar("T")
Work = Callable[[sqlite3.Connection], T]

DRIVER_ERRORS = (sqlite3.Error, UnicodeEncodeError)
"""What the driver raises for a statement it cannot run; callers see StoreError instead."""


async def on_connection_thread(connection: aiosqlite.Connection, work: Work[T]) -> T:
    """Run `work(sqlite3_connection)` on aiosqlite's connection thread, as one uninterrupted call.

    aiosqlite runs every call on its one thread but offers only statement-sized calls publicly;
    a transaction spanning many statements must be a single call there, or another coroutine's
    statement could land inside it. `Connection._execute(fn)` is exactly that primitive. It is
    private, but stable across the pinned aiosqlite>=0.20,<0.23: this is the only place using it.
    """
    execute = cast("Callable[[Callable[[], T]], Awaitable[T]]", connection._execute)
    return await execute(lambda: work(connection._conn))


async def connect(path: Path) -> aiosqlite.Connection:
    """Open `path` in autocommit mode (the writer issues BEGIN/COMMIT itself).

    When the open fails, aiosqlite stops its thread without waiting for it, and the thread
    later reports to an event loop that may be closed by then; wait for the thread here.
    """
    connection = aiosqlite.connect(path, isolation_level=None)
    try:
        return await connection
    except BaseException:
        thread = getattr(connection, "_thread", connection)  # aiosqlite < 0.22: it is the thread
        if isinstance(thread, threading.Thread) and thread.ident is not None:
            await asyncio.to_thread(thread.join, 5.0)
        raise


@dataclass(slots=True)
class _Op(Generic[T]):
    work: Work[T]
    future: asyncio.Future[T]
    writes: bool


@dataclass(frozen=True, slots=True)
class _Done:
    value: Any


@dataclass(frozen=True, slots=True)
class _Raised:
    error: BaseException


_Outcome = _Done | _Raised


class GroupCommitWriter:
    def __init__(
        self,
        connection: aiosqlite.Connection,
        max_batch: int = 512,
        max_linger_turns: int = 4,
    ) -> None:
        self._connection = connection
        self._max_batch = max_batch
        self._max_linger_turns = max_linger_turns
        self._waiting: deque[_Op[Any]] = deque()
        self._signal = asyncio.Event()
        self._closed = False
        self._task: asyncio.Task[None] | None = None
        self.transactions = 0
        """Batches run so far (observability; tests use it to see operations share a commit)."""

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="vidrelay-sqlite-writer")

    async def submit(self, work: Work[T], *, writes: bool = True) -> T:
        """Run `work` in the next batch; its result, or its exception (driver errors as StoreError)."""
        if self._closed:
            raise StoreError("the SQLite store is closed")
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._waiting.append(_Op(work, future, writes))
        self._signal.set()
        return await future

    async def close(self) -> None:
        """Refuse new work, finish what is waiting, stop the writer task."""
        self._closed = True
        self._signal.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        try:
            while True:
                await self._signal.wait()
                self._signal.clear()
                while self._waiting:
                    await self._linger()
                    await self._run_batch(self._take_batch())
                if self._closed:
                    return
        except asyncio.CancelledError:
            # The event loop is going away without close() (asyncio.run cancels leftover tasks).
            # Stop aiosqlite's thread too: it is not a daemon, so it would keep the process alive.
            self._closed = True
            for op in self._waiting:
                if not op.future.done():
                    op.future.set_exception(StoreError("the SQLite store was shut down"))
            self._waiting.clear()
            stop = getattr(self._connection, "stop", None)  # aiosqlite >= 0.22.1
            if stop is not None:
                stop()
            raise

    async def _linger(self) -> None:
        """Let the event loop turn while that brings more operations, a few turns at most.

        The coroutines woken by the last commit (workers, producers) each submit their next
        operation within a turn or two; waiting for them costs microseconds, while every
        separate commit costs an fsync.
        """
        for _ in range(self._max_linger_turns):
            waiting = len(self._waiting)
            await asyncio.sleep(0)
            if len(self._waiting) == waiting:
                return

    def _take_batch(self) -> list[_Op[Any]]:
        batch: list[_Op[Any]] = []
        while self._waiting and len(batch) < self._max_batch:
            op = self._waiting.popleft()
            if not op.future.cancelled():  # its caller is gone before it started: skip it
                batch.append(op)
        return batch

    async def _run_batch(self, batch: list[_Op[Any]]) -> None:
        if not batch:
            return
        works = [op.work for op in batch]
        begin = "BEGIN IMMEDIATE" if any(op.writes for op in batch) else "BEGIN"
        try:
            outcomes = await on_connection_thread(self._connection, lambda c: _transaction(c, begin, works))
        except Exception as error:  # noqa: BLE001 - the connection itself failed: every caller hears it
            failure = StoreError(f"SQLite connection failed: {error}")
            failure.__cause__ = error
            outcomes = [_Raised(failure)] * len(batch)
        self.transactions += 1
        for op, outcome in zip(batch, outcomes, strict=True):
            if op.future.done():
                continue
            if isinstance(outcome, _Done):
                op.future.set_result(outcome.value)
            else:
                op.future.set_exception(_as_port_error(outcome.error))


def _as_port_error(error: BaseException) -> BaseException:
    if isinstance(error, DRIVER_ERRORS):
        wrapped = StoreError(f"SQLite: {error}")
        wrapped.__cause__ = error
        return wrapped
    return error


def _transaction(connection: sqlite3.Connection, begin: str, works: list[Work[Any]]) -> list[_Outcome]:
    """One transaction, one SAVEPOINT per work. Runs on the connection thread.

    Some errors (SQLITE_FULL, IOERR, ...) make SQLite roll back the whole transaction, not just
    the failing statement: the works that had succeeded in it then run once more in a fresh
    transaction, so a failing work still fails alone. If a transaction cannot even begin (the
    file stayed locked past busy_timeout), every work left gets that error at once; if the
    commit fails, every work in it does.
    """
    outcomes: list[_Outcome | None] = [None] * len(works)
    order = deque(range(len(works)))
    pending: list[int] = []  # done inside the open transaction, not committed yet
    rerun: set[int] = set()
    while order:
        index = order.popleft()
        if not connection.in_transaction:
            try:
                connection.execute(begin)
            except Exception as error:  # noqa: BLE001 - reported to every work left
                for left in (index, *order):
                    outcomes[left] = _Raised(error)
                return _all(outcomes)
        try:
            connection.execute("SAVEPOINT op")
            value = works[index](connection)
            connection.execute("RELEASE op")
        except Exception as error:  # noqa: BLE001 - reported to this work's caller
            outcomes[index] = _Raised(error)
            _roll_back_savepoint(connection)
            if not connection.in_transaction:  # SQLite took the whole transaction with it
                again = [i for i in pending if i not in rerun]
                for lost in pending:
                    outcomes[lost] = None if lost in again else _Raised(_rolled_back())
                rerun.update(again)
                order.extendleft(reversed(again))
                pending.clear()
        else:
            outcomes[index] = _Done(value)
            pending.append(index)
    try:
        if connection.in_transaction:
            connection.execute("COMMIT")
    except Exception as error:  # noqa: BLE001 - the commit failed: nothing of this transaction stands
        for lost in pending:
            outcomes[lost] = _Raised(error)
        with contextlib.suppress(Exception):
            if connection.in_transaction:
                connection.execute("ROLLBACK")
    return _all(outcomes)


def _all(outcomes: list[_Outcome | None]) -> list[_Outcome]:
    return [outcome or _Raised(_rolled_back()) for outcome in outcomes]


def _rolled_back() -> sqlite3.Error:
    return sqlite3.OperationalError("the transaction was rolled back by SQLite")


def _roll_back_savepoint(connection: sqlite3.Connection) -> None:
    with contextlib.suppress(sqlite3.Error):  # SQLite may have rolled back the whole transaction
        if connection.in_transaction:
            connection.execute("ROLLBACK TO op")
            connection.execute("RELEASE op")
