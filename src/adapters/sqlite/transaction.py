"""One group commit: one transaction for a batch of operations.

First try: BEGIN, then every kind of operation for all of its requests at once (kinds.py), their
statements sent together, then COMMIT: three hops to the connection's thread however many jobs
the batch carries (a few more when a claim needs a closer look). If anything fails in it, the
transaction is rolled back and the batch runs again one operation at a time, each inside its own
SAVEPOINT: a failing operation rolls back alone and gets its own exception, the others commit.

Statements sent together keep running after one of them failed. That is safe because the
connection begins a transaction itself before any INSERT, UPDATE or DELETE that finds none open
(connection.py): one that follows a failure which took the whole transaction with it opens a new
one instead of committing on its own, and the ROLLBACK that follows the failure undoes it.

Some errors (SQLITE_FULL, IOERR, a trigger's RAISE(ROLLBACK)) make SQLite roll back the whole
transaction, not just the failing statement: the operations that had succeeded in it run once
more in a fresh transaction, so a failing operation still fails alone. If a transaction cannot
even begin (the file stayed locked past busy_timeout), every operation left gets that error at
once; if the commit fails, every operation in it does. If a ROLLBACK itself fails, nobody knows
what the transaction holds: every operation fails and the connection must be reopened.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from adapters.sqlite.connection import Db
from adapters.sqlite.kinds import Kind, results, run_kind

DRIVER_ERRORS = (sqlite3.Error, UnicodeEncodeError)
"""What the driver raises for a statement it cannot run; callers see StoreError instead."""
_DAMAGE_CODES = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})


def damaged(error: BaseException) -> bool:
    """SQLite says the file itself is broken ("database disk image is malformed"), which no
    retry mends."""
    return (
        isinstance(error, sqlite3.DatabaseError)
        and getattr(error, "sqlite_errorcode", 0) & 0xFF in _DAMAGE_CODES
    )


@dataclass(frozen=True, slots=True)
class Done:
    value: Any


Outcome = Done | BaseException


@dataclass(frozen=True, slots=True)
class Operation:
    kind: Kind
    request: Any


@dataclass
class Batch:
    operations: Sequence[Operation]
    writes: bool
    connection_lost: bool = False

    @property
    def begin(self) -> str:
        return "BEGIN IMMEDIATE" if self.writes else "BEGIN"


class _RollbackFailed(Exception):
    pass


async def run_batch(db: Db, batch: Batch) -> list[Outcome]:
    try:
        await db.execute(batch.begin)
    except Exception as error:  # noqa: BLE001 - reported to every operation
        return [error] * len(batch.operations)
    outcomes: list[Outcome | None] = [None] * len(batch.operations)
    try:
        try:
            values = await _all_at_once(db, batch.operations)
        except Exception:  # noqa: BLE001 - found again, and reported to its own caller, below
            await _roll_back(db)
            await _one_at_a_time(db, batch, outcomes)
        else:
            outcomes = [Done(value) for value in values]
            await _commit(db, list(range(len(outcomes))), outcomes)
    except _RollbackFailed as error:
        batch.connection_lost = True
        cause = error.__cause__ or error
        return [o if isinstance(o, BaseException) else _lost(cause) for o in outcomes]
    return [o if o is not None else _lost() for o in outcomes]


async def _all_at_once(db: Db, operations: Sequence[Operation]) -> list[Any]:
    """Each kind once, for all of its requests: every kind's statements sent at once, in rank
    order, then each kind's answers (which may take more statements), in rank order."""
    by_kind: dict[Kind, list[int]] = {}
    for index, operation in enumerate(operations):
        by_kind.setdefault(operation.kind, []).append(index)
    kinds = sorted(by_kind, key=lambda k: k.rank)
    sendings = [kind.send(db, [operations[i].request for i in by_kind[kind]]) for kind in kinds]
    ran = await results([statement for sending in sendings for statement in sending.statements])
    values: list[Any] = [None] * len(operations)
    for kind, sending in zip(kinds, sendings, strict=True):
        mine, ran = ran[: len(sending.statements)], ran[len(sending.statements) :]
        for index, answer in zip(by_kind[kind], await sending.answer(mine), strict=True):
            values[index] = answer
    return values


async def _one_at_a_time(db: Db, batch: Batch, outcomes: list[Outcome | None]) -> None:
    order = deque(range(len(batch.operations)))
    pending: list[int] = []  # done inside the open transaction, not committed yet
    rerun: set[int] = set()
    while order:
        index = order.popleft()
        if not db.in_transaction:
            try:
                await db.execute(batch.begin)
            except Exception as error:  # noqa: BLE001 - reported to every operation left
                for left in (index, *order):
                    outcomes[left] = error
                return
        operation = batch.operations[index]
        try:
            await db.execute("SAVEPOINT op")
            (value,) = await run_kind(db, operation.kind, [operation.request])
            await db.execute("RELEASE op")
        except Exception as error:  # noqa: BLE001 - reported to this operation's caller
            outcomes[index] = error
            await _roll_back_savepoint(db)
            if not db.in_transaction:  # SQLite took the whole transaction with it
                again = [i for i in pending if i not in rerun]
                for lost in pending:
                    outcomes[lost] = None if lost in again else _lost()
                rerun.update(again)
                order.extendleft(reversed(again))
                pending.clear()
        else:
            outcomes[index] = Done(value)
            pending.append(index)
    await _commit(db, pending, outcomes)


async def _commit(db: Db, pending: list[int], outcomes: list[Outcome | None]) -> None:
    if not db.in_transaction:
        return
    try:
        await db.execute("COMMIT")
    except Exception as error:  # noqa: BLE001 - the commit failed: nothing of this transaction stands
        for lost in pending:
            outcomes[lost] = error
        await _roll_back(db)


async def _roll_back(db: Db) -> None:
    if not db.in_transaction:
        return
    try:
        await db.execute("ROLLBACK")
    except sqlite3.Error as failed:
        raise _RollbackFailed from failed


async def _roll_back_savepoint(db: Db) -> None:
    if not db.in_transaction:
        return
    try:
        await db.execute("ROLLBACK TO op")
        await db.execute("RELEASE op")
    except sqlite3.Error as error:
        with contextlib.suppress(sqlite3.Error):
            await db.execute("ROLLBACK")
        raise _RollbackFailed from error


def _lost(cause: BaseException | None = None) -> sqlite3.Error:
    error = sqlite3.OperationalError("the transaction was rolled back by SQLite")
    error.__cause__ = cause
    return error
