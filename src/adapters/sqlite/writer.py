"""The single path to the SQLite connection, with group commit.

Every operation of the store is a request of some kind (kinds.py). A writer task takes every
operation waiting and runs them as one transaction (transaction.py): each kind once for all of
its requests, and should anything fail, each operation alone in its own SAVEPOINT, so a failing
operation rolls back alone and gets its own exception while the others commit together. So
transactions never interleave across coroutines, and writes that arrive together share one
commit (one fsync at synchronous=FULL) and a few calls on the connection without weakening any
guarantee: nobody hears "done" before the transaction holding their change is committed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from adapters.sqlite.connection import SqliteConnection
from adapters.sqlite.kinds import Kind
from adapters.sqlite.transaction import DRIVER_ERRORS, Batch, Operation, damaged, run_batch
from ports.errors import StoreDamaged, StoreError

T = TypeVar("T")
log = logging.getLogger("vidrelay.sqlite")


@dataclass(slots=True)
class _Op(Generic[T]):
    operation: Operation
    future: asyncio.Future[T]
    writes: bool


class GroupCommitWriter:
    def __init__(self, connection: SqliteConnection, max_batch: int = 512, max_linger_turns: int = 4) -> None:
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

    async def submit(self, kind: Kind, request: object, *, writes: bool = True) -> Any:
        """Run `request` in the next batch; its answer, or its exception (driver errors as StoreError)."""
        if self._closed:
            raise StoreError("the SQLite store is closed")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting.append(_Op(Operation(kind, request), future, writes))
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
            # The event loop is going away without close() (asyncio.run cancels leftover tasks):
            # fail what waits and let the connection's thread end, or it would hold the process.
            self._closed = True
            for op in self._waiting:
                if not op.future.done():
                    op.future.set_exception(StoreError("the SQLite store was shut down"))
            self._waiting.clear()
            self._connection.stop()
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

    async def _run_batch(self, ops: list[_Op[Any]]) -> None:
        if not ops:
            return
        batch = Batch([op.operation for op in ops], writes=any(op.writes for op in ops))
        try:
            outcomes = await run_batch(await self._connection.db(), batch)
        except Exception as error:  # noqa: BLE001 - the connection itself failed: every caller hears it
            failure = _as_port_error(error, self._connection.settings.path)
            if not isinstance(failure, StoreError):
                failure = StoreError(f"SQLite connection failed: {error}")
                failure.__cause__ = error
            outcomes, batch.connection_lost = [failure] * len(ops), True
        self.transactions += 1
        if batch.connection_lost:
            # A ROLLBACK that failed leaves a transaction nobody knows the state of: start afresh.
            log.warning("the SQLite connection is in an unknown state: reopening it")
            with contextlib.suppress(Exception):
                await self._connection.forget()
        for op, outcome in zip(ops, outcomes, strict=True):
            if op.future.done():
                continue
            if isinstance(outcome, BaseException):
                op.future.set_exception(_as_port_error(outcome, self._connection.settings.path))
            else:
                op.future.set_result(outcome.value)


def _as_port_error(error: BaseException, path: Path) -> BaseException:
    if damaged(error):
        wrapped: StoreError = StoreDamaged(
            f"{path} is damaged ({error}): restore a backup (vidrelay restore)"
        )
    elif isinstance(error, DRIVER_ERRORS):
        wrapped = StoreError(f"SQLite: {error}")
    else:
        return error
    wrapped.__cause__ = error
    return wrapped
