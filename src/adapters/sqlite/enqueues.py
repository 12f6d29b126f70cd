"""New jobs, a batch's at once: the rows in one executemany, their ids in one more statement; with
guards, one read of the marks that exist and one executemany of the new ones, all sent together."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from adapters.sqlite.connection import Db
from adapters.sqlite.kinds import Sent, sent
from ports.jobs import HandledUrlGuard, NewJob

_INSERT_JOB: Final = """
    INSERT INTO jobs (name, payload, attempts, max_attempts, available_at, key, owner_id, created_at,
        requester, turn)
    SELECT ?1, ?2, 0, ?3, ?4, ?5, ?6, ?7, ?8, CASE WHEN ?9 THEN -1 ELSE max(
        0,
        coalesce((SELECT max(turn) + 1 FROM jobs WHERE requester = ?10), 0),
        coalesce(
            (SELECT max(turn) FROM jobs WHERE claimed_by IS NOT NULL),
            (SELECT min(turn) FROM jobs WHERE claimed_by IS NULL),
            0
        )
    ) END
    WHERE NOT EXISTS (SELECT 1 FROM handled_urls WHERE chat_id = ?11 AND message_id = ?12 AND url = ?13)
"""
"""The row's turn (ports.queue's fair order), each part an index lookup: the requester's highest
queued turn (jobs_requester), the held rows (few: one per running job), the lowest free turn;
-1 for a quick row. ?10 is the requester whose turns count: none in first-in, first-out order,
where every row then takes the current turn, 0. Run once per row (executemany), so each row's
turn counts the rows before it. ?11-?13: the guard's mark; no row if it exists (none: NULLs)."""
_EXISTING_MARKS: Final = """
    SELECT chat_id, message_id, url FROM handled_urls
    WHERE (chat_id, message_id, url) IN (VALUES {marks})
"""
_MARK: Final = """
    INSERT INTO handled_urls (chat_id, message_id, url, created_at) VALUES (?, ?, ?, ?)
    ON CONFLICT DO NOTHING
"""
_LAST_ID: Final = "SELECT last_insert_rowid()"
Mark = tuple[int, int, str]


@dataclass(frozen=True, slots=True)
class Enqueue:
    job: NewJob
    payload: str
    """The job's payload, encoded already."""
    now: float
    guard: HandledUrlGuard | None
    fair: bool
    """False: first-in, first-out instead of the fair order."""

    @property
    def mark(self) -> Mark | None:
        guard = self.guard
        return None if guard is None else (guard.chat_id, guard.message_id, guard.url)

    def values(self) -> tuple[object, ...]:
        """`_INSERT_JOB`'s parameters; available_at 0 means "now"."""
        job = self.job
        available_at = job.available_at or self.now
        row = (job.name, self.payload, job.max_attempts, available_at, job.key, job.owner_id, self.now)
        return (
            *row,
            job.requester,
            job.quick,
            job.requester if self.fair else None,
            *(self.mark or (None,) * 3),
        )


class Enqueues:
    rank = 2

    def send(self, db: Db, requests: Sequence[Enqueue]) -> Sent:
        # Of several requests with one mark, the first is the one that may take it.
        firsts = {r.mark: i for i, r in reversed(list(enumerate(requests)))}
        chosen = [i for i, r in enumerate(requests) if r.mark is None or firsts[r.mark] == i]
        marks = [(mark, requests[i].now) for i in chosen if (mark := requests[i].mark) is not None]
        statements: list[asyncio.Future[Any]] = []
        if marks:
            rows = ", ".join(["(?, ?, ?)"] * len(marks))
            params = [v for mark, _ in marks for v in mark]
            statements.append(sent(db.execute_fetchall(_EXISTING_MARKS.format(marks=rows), params)))
        statements.append(sent(db.executemany(_INSERT_JOB, [requests[i].values() for i in chosen])))
        statements.append(sent(db.execute_fetchall(_LAST_ID)))
        if marks:
            statements.append(sent(db.executemany(_MARK, [(*mark, now) for mark, now in marks])))

        async def answer(ran: list[Any]) -> list[int | None]:
            """Each new row's id; None where the guard's mark was there already."""
            existing = {tuple(row) for row in ran[0]} if marks else set()
            ((last,),) = ran[-2] if marks else ran[-1]
            inserted = [i for i in chosen if requests[i].mark not in existing]
            # AUTOINCREMENT under the write lock: the rows took consecutive ids, the last one ends them.
            ids: list[int | None] = [None] * len(requests)
            for index, job_id in zip(inserted, range(last - len(inserted) + 1, last + 1), strict=True):
                ids[index] = job_id
            return ids

        return Sent(answer, statements)


ENQUEUES = Enqueues()


async def insert_job(db: Db, request: Enqueue) -> int:
    """One row without a guard, for an operation that runs alone (adopting a parked job,
    retrying a dead one, a singleton): its id."""
    cursor = await db.execute(_INSERT_JOB, request.values())
    if cursor.rowcount != 1 or cursor.lastrowid is None:  # pragma: no cover - no guard, no reason
        raise sqlite3.InternalError("INSERT INTO jobs inserted no row")
    return cursor.lastrowid
