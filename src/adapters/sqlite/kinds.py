"""Kinds of operation: a group commit runs all the operations of one kind together.

An operation is a kind and a request. A kind's `send` takes every request of its kind in a batch,
in the order they were submitted, and hands its statements for all of them to the connection at
once (`executemany`, `IN (...)`, `RETURNING`): their number does not grow with the number of
requests. Statements sent one after another, by one kind or by several, run back to back on the
connection's thread, so the first statements of every kind in a batch cost one hop together;
`answer` then reads their results and answers each request, and may send a few more.

A kind's answers are those of running its requests one after another in that order; that is
what the batch does instead when anything in it failed: each request alone, in a savepoint of
its own (transaction.py). The kinds are sent in the order of their `rank`: the requests of one
batch were all in flight at once, so any order is one their callers could have seen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from adapters.sqlite.connection import Db, Work

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Sent:
    """What a kind handed to the connection, and how it answers its requests from the results."""

    answer: Callable[[list[Any]], Awaitable[Sequence[Any]]]
    """Given the statements' results, in order: one answer per request."""
    statements: Sequence[asyncio.Future[Any]] = field(default_factory=list)


class Kind(Protocol):
    rank: int
    """Where a batch sends this kind: lower first."""

    def send(self, db: Db, requests: Sequence[Any]) -> Sent: ...


def sent(statement: Awaitable[T]) -> asyncio.Future[T]:
    """Hand a statement to the connection's thread without waiting for its result: statements
    reach the thread in the order they were sent (at the loop's next turn)."""
    return asyncio.ensure_future(statement)


async def results(statements: Sequence[asyncio.Future[Any]]) -> list[Any]:
    """Every statement's result, once all of them ran; the first failure, if any failed."""
    ran: list[Any] = []
    failure: BaseException | None = None
    for statement in statements:
        try:
            ran.append(await statement)
        except Exception as error:  # noqa: BLE001 - the first is raised once every statement ran
            failure = failure or error
    if failure is not None:
        raise failure
    return ran


async def run_kind(db: Db, kind: Kind, requests: Sequence[Any]) -> Sequence[Any]:
    """Send `requests` and answer them, waiting for nothing else."""
    sending = kind.send(db, requests)
    return await sending.answer(await results(sending.statements))


class Alone:
    """Operations that run one after another, each a function of the connection: everything
    off the workers' hot path (reads, the operator's tools, caches, settings, heartbeats)."""

    rank = 0

    def send(self, db: Db, requests: Sequence[Work[Any]]) -> Sent:
        async def answer(_: list[Any]) -> list[Any]:
            return [await work(db) for work in requests]

        return Sent(answer)


ALONE = Alone()
