"""One group commit on the connection's thread: one transaction, one SAVEPOINT per operation.

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
from dataclasses import dataclass, field
from typing import Any

from adapters.sqlite.connection import Work

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


@dataclass
class Batch:
    works: list[Work[Any]]
    writes: bool
    connection_lost: bool = False
    outcomes: list[Outcome | None] = field(default_factory=list)


class _RollbackFailed(Exception):
    pass


def run_batch(connection: sqlite3.Connection, batch: Batch) -> list[Outcome]:
    batch.outcomes = [None] * len(batch.works)
    try:
        _transaction(connection, batch)
    except _RollbackFailed as error:
        batch.connection_lost = True
        cause = error.__cause__ or error
        return [_lost(cause) if not isinstance(o, BaseException) else o for o in batch.outcomes]
    return [o if o is not None else _lost() for o in batch.outcomes]


def _transaction(connection: sqlite3.Connection, batch: Batch) -> None:
    begin = "BEGIN IMMEDIATE" if batch.writes else "BEGIN"
    outcomes = batch.outcomes
    order = deque(range(len(batch.works)))
    pending: list[int] = []  # done inside the open transaction, not committed yet
    rerun: set[int] = set()
    while order:
        index = order.popleft()
        if not connection.in_transaction:
            try:
                connection.execute(begin)
            except Exception as error:  # noqa: BLE001 - reported to every operation left
                for left in (index, *order):
                    outcomes[left] = error
                return
        try:
            connection.execute("SAVEPOINT op")
            value = batch.works[index](connection)
            connection.execute("RELEASE op")
        except Exception as error:  # noqa: BLE001 - reported to this operation's caller
            outcomes[index] = error
            _roll_back_savepoint(connection)
            if not connection.in_transaction:  # SQLite took the whole transaction with it
                again = [i for i in pending if i not in rerun]
                for lost in pending:
                    outcomes[lost] = None if lost in again else _lost()
                rerun.update(again)
                order.extendleft(reversed(again))
                pending.clear()
        else:
            outcomes[index] = Done(value)
            pending.append(index)
    _commit(connection, pending, outcomes)


def _commit(connection: sqlite3.Connection, pending: list[int], outcomes: list[Outcome | None]) -> None:
    if not connection.in_transaction:
        return
    try:
        connection.execute("COMMIT")
    except Exception as error:  # noqa: BLE001 - the commit failed: nothing of this transaction stands
        for lost in pending:
            outcomes[lost] = error
        if connection.in_transaction:
            try:
                connection.execute("ROLLBACK")
            except sqlite3.Error as failed:
                raise _RollbackFailed from failed


def _roll_back_savepoint(connection: sqlite3.Connection) -> None:
    if not connection.in_transaction:
        return
    try:
        connection.execute("ROLLBACK TO op")
        connection.execute("RELEASE op")
    except sqlite3.Error as error:
        with contextlib.suppress(sqlite3.Error):
            connection.execute("ROLLBACK")
        raise _RollbackFailed from error


def _lost(cause: BaseException | None = None) -> sqlite3.Error:
    error = sqlite3.OperationalError("the transaction was rolled back by SQLite")
    error.__cause__ = cause
    return error
