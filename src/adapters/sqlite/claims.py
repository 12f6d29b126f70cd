"""Claims, a batch's at once, as they would have found the rows one after another in the order
they were sent: each takes the first free row of its lane that is due by its own `now` and not
taken by a claim before it; a holder that holds a suspect takes nothing, and a suspect row is
taken only by a holder that holds nothing (ports.queue).

Mostly one statement does it: the batch's claims come from one holder with one lease down one
lane (the quick lane's claims beside them finding nothing), the first rows of that lane are due
for every claim, none of them suspect, no lease has ended and the holder holds no suspect; then
claim k takes row k, and `_AT_ONCE` takes them all (or, if any of that does not hold, nothing).
Otherwise a closer look: one read of the holder's state and the
store's clock with the first free rows of each lane, the choice made here, one UPDATE ...
RETURNING of the chosen rows. A claim whose answer may lie beyond the rows read (rows due for a
later `now`, not for its own, filled the read) takes a look of its own once the claims before it
took their rows, and the claims after it another.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from adapters.sql.job_rows import JOB_COLUMNS, job_from_row
from adapters.sql.json_text import dump_json
from adapters.sqlite.connection import Db
from adapters.sqlite.kinds import Sent, results, sent
from adapters.sqlite.store_clock import STORE_NOW
from ports.jobs import Job

FOREVER: Final = float("inf")

_A_LEASE_ENDED: Final = "SELECT 1 FROM jobs WHERE lease_until <= ? LIMIT 1"
# The store's clock, whether any lease ended, and what the claiming holder holds. The take-back
# only has work once some lease ended: this probe of the lease index is what the hot path pays
# instead of the take-back's GROUP BY.
_STATE: Final = f"""
    SELECT {STORE_NOW}, EXISTS (SELECT 1 FROM jobs WHERE lease_until <= {STORE_NOW}),
        count(*), coalesce(max(suspect), 0)
    FROM jobs WHERE claimed_by = ?
"""  # noqa: S608 - a constant expression
# A holder none of whose leases is still running is gone: all its rows come back at once, suspect,
# and with their attempts refunded when it held several (none of them can be blamed alone).
_TAKE_BACK: Final = """
    WITH gone(holder, held) AS (
        SELECT claimed_by, count(*) FROM jobs
        WHERE claimed_by IS NOT NULL AND claimed_by <> :me
        GROUP BY claimed_by HAVING max(lease_until) <= :dead_before
    )
    UPDATE jobs SET
        attempts = CASE WHEN (SELECT held FROM gone WHERE holder = jobs.claimed_by) > 1
            THEN max(attempts - 1, 0) ELSE attempts END,
        suspect = 1, claimed_by = NULL, lease_until = NULL
    WHERE claimed_by IN (SELECT holder FROM gone)
    RETURNING id
"""
# Each lane walks the free rows in the fair order (jobs_fair: turn, id) and stops after as many
# due rows as the batch has claims: cheap however long the queue. Left free to use the
# available_at index, the planner sorts every due row instead (milliseconds at 20k queued rows);
# INDEXED BY pins the plan, a test checks it. ?1: now, ?2: how many rows.
FREE: Final = """
    SELECT id, suspect, available_at FROM jobs INDEXED BY jobs_fair
    WHERE claimed_by IS NULL AND available_at <= ?1
    ORDER BY turn, id LIMIT ?2
"""
FREE_UNPAUSED: Final = """
    SELECT id, suspect, available_at FROM jobs INDEXED BY jobs_fair
    WHERE claimed_by IS NULL AND available_at <= ?1 AND key NOT IN (SELECT value FROM json_each(?3))
    ORDER BY turn, id LIMIT ?2
"""
# A cache hit touches no site: the quick lane ignores the paused keys, and leaves suspects to the
# claims that know to run them alone.
QUICK: Final = """
    SELECT id, suspect, available_at FROM jobs INDEXED BY jobs_fair
    WHERE claimed_by IS NULL AND turn < 0 AND available_at <= ?1 AND NOT suspect
    ORDER BY turn, id LIMIT ?2
"""
_AT_ONCE: Final = {
    lane: f"""
    UPDATE jobs SET attempts = attempts + 1, claimed_by = ?5, lease_until = {STORE_NOW} + ?6,
        token = token + 1
    WHERE id IN (SELECT id FROM ({lane}))
        AND NOT EXISTS (SELECT 1 FROM ({lane}) WHERE suspect OR available_at > ?4)
        AND NOT EXISTS (SELECT 1 FROM jobs WHERE lease_until <= {STORE_NOW})
        AND NOT EXISTS (SELECT 1 FROM jobs WHERE claimed_by = ?5 AND suspect)
        AND NOT EXISTS (
            SELECT 1 FROM jobs INDEXED BY jobs_fair
            WHERE claimed_by IS NULL AND turn < 0 AND available_at <= ?7 AND NOT suspect
        )
    RETURNING {JOB_COLUMNS}
    """  # noqa: S608 - constant text
    for lane in (FREE, FREE_UNPAUSED, QUICK)
}
"""Per lane: ?1 the latest `now` of its claims, ?2 their number, ?3 FREE_UNPAUSED's paused keys,
?4 the earliest `now`, ?5 the holder, ?6 the lease's length, ?7 the latest `now` of the quick
lane's claims beside them (NULL: none), which must find nothing: the quick lane's worker claims
when a quick row is enqueued, so its claim may share a batch with the others'."""
_TAKE: Final = f"""
    UPDATE jobs SET attempts = attempts + 1, claimed_by = ?, lease_until = ?, token = token + 1
    WHERE id IN (SELECT value FROM json_each(?))
    RETURNING {JOB_COLUMNS}
"""  # noqa: S608 - a constant column list


@dataclass(frozen=True, slots=True)
class Claim:
    worker_id: str
    now: float
    lease_seconds: float
    lane: str
    """FREE, FREE_UNPAUSED or QUICK."""
    lane_params: tuple[object, ...] = ()
    """The lane's parameters after now and the count: FREE_UNPAUSED's paused keys."""


class Claims:
    rank = 3

    def send(self, db: Db, requests: Sequence[Claim]) -> Sent:
        fit = _at_once(requests)
        if fit is None:
            return Sent(lambda _: _closer_look(db, requests))
        lane, params, served = fit

        async def answer(ran: list[Any]) -> list[Job | None]:
            if not ran[0]:  # it took nothing: no row was free, or some claim needs a closer look
                return await _closer_look(db, requests)
            jobs = sorted((job_from_row(row) for row in ran[0]), key=lambda job: (job.turn, job.id))
            answers: list[Job | None] = [None] * len(requests)
            for index, job in zip(served, jobs, strict=False):  # claim k takes row k
                answers[index] = job
            return answers

        return Sent(answer, [sent(db.execute_fetchall(_AT_ONCE[lane], params))])


def _at_once(requests: Sequence[Claim]) -> tuple[str, tuple[object, ...], list[int]] | None:
    """`_AT_ONCE`'s lane and parameters, and the claims it serves, when the claims fit it: one
    holder and one lease, one lane besides the quick lane's claims (which must find nothing)."""
    quick = [i for i, r in enumerate(requests) if r.lane == QUICK]
    served = [i for i, r in enumerate(requests) if r.lane != QUICK] or quick
    first = requests[served[0]]
    if any((r.worker_id, r.lease_seconds) != (first.worker_id, first.lease_seconds) for r in requests):
        return None
    if any((requests[i].lane, requests[i].lane_params) != (first.lane, first.lane_params) for i in served):
        return None
    nows = [requests[i].now for i in served]
    beside = max((requests[i].now for i in quick if i not in served), default=None)
    lane_params = first.lane_params or (None,)
    params = (max(nows), len(served), *lane_params, min(nows), first.worker_id, first.lease_seconds, beside)
    return first.lane, params, served


CLAIMS = Claims()


async def take_back(db: Db, worker_id: str, dead_before: float) -> int:
    """Take back the rows of every other holder whose leases all ended by `dead_before`."""
    if dead_before != FOREVER and not await db.execute_fetchall(_A_LEASE_ENDED, (dead_before,)):
        return 0
    # Counted from RETURNING: the driver reports no rowcount for a statement that starts with WITH.
    return len(list(await db.execute_fetchall(_TAKE_BACK, {"me": worker_id, "dead_before": dead_before})))


async def _closer_look(db: Db, requests: Sequence[Claim]) -> list[Job | None]:
    if len({r.worker_id for r in requests}) == 1:
        return await _together(db, requests)
    # Several holders in one batch (several engines on one store: tests, comparisons): each
    # one's claim may take back another's rows, so they run one after another.
    return [(await _together(db, [request]))[0] for request in requests]


async def _together(db: Db, requests: Sequence[Claim]) -> list[Job | None]:
    worker = requests[0].worker_id
    state = sent(db.execute_fetchall(_STATE, (worker,)))
    lanes = _lanes(db, requests)
    (((at, a_lease_ended, held, holds_suspect),), *rows) = await results([state, *lanes.values()])
    if a_lease_ended:  # this holder's own rows are not taken back: `held` stays true
        await db.execute_fetchall(_TAKE_BACK, {"me": worker, "dead_before": at})
        lanes = _lanes(db, requests)
        rows = await results(list(lanes.values()))
    free = {lane: list(found) for lane, found in zip(lanes, rows, strict=True)}
    picks = _choose(requests, free, held, bool(holds_suspect))
    taken = await _take(db, worker, at, requests, picks)
    answers = [None if pick is None else taken[pick] for pick in picks]
    if len(picks) < len(requests):  # the claim after the last pick needs a look of its own
        answers += await _together(db, requests[len(picks) : len(picks) + 1])
        if len(picks) + 1 < len(requests):
            answers += await _together(db, requests[len(picks) + 1 :])
    return answers


def _lanes(db: Db, requests: Sequence[Claim]) -> dict[tuple[Any, ...], asyncio.Future[Any]]:
    """Sends the reads of the first free rows of each lane, due by the latest `now` of its claims."""
    latest: dict[tuple[Any, ...], float] = {}
    for r in requests:
        lane = (r.lane, r.lane_params)
        latest[lane] = max(latest.get(lane, r.now), r.now)
    count = len(requests)
    return {lane: sent(db.execute_fetchall(lane[0], (now, count, *lane[1]))) for lane, now in latest.items()}


def _choose(
    requests: Sequence[Claim], lanes: dict[tuple[Any, ...], list[Any]], held: int, holds_suspect: bool
) -> list[int | None]:
    """The row each claim takes (None: nothing), up to the first claim whose answer may lie
    beyond the rows read."""
    taken: set[int] = set()
    picks: list[int | None] = []
    for request in requests:
        pick = None
        if not holds_suspect:
            rows = lanes[(request.lane, request.lane_params)]
            row = next((r for r in rows if r[0] not in taken and r[2] <= request.now), None)
            if row is None and len(rows) == len(requests):
                break
            if row is not None and not (row[1] and held):
                pick, held, holds_suspect = row[0], held + 1, bool(row[1])
                taken.add(pick)
        picks.append(pick)
    return picks


async def _take(
    db: Db, worker: str, at: float, requests: Sequence[Claim], picks: list[int | None]
) -> dict[int, Job]:
    by_lease: dict[float, list[int]] = {}
    for request, pick in zip(requests, picks, strict=False):
        if pick is not None:
            by_lease.setdefault(request.lease_seconds, []).append(pick)
    statements = [
        sent(db.execute_fetchall(_TAKE, (worker, at + s, dump_json(ids)))) for s, ids in by_lease.items()
    ]
    return {row[0]: job_from_row(row) for rows in await results(statements) for row in rows}
