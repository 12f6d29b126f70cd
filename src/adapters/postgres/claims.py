"""Claims and completions share round trips: one `vidrelay_claim` call settles every finished job
of this process and claims for every free worker that asked, in one transaction.

The calls submitted while the previous round trip runs (or in the same turn of the event loop:
the engine submits a finished job's deletion together with its next claim) form the next batch,
so a busy process commits once per batch instead of twice per job, and the free worker slots
are filled by one claim of up to that many rows. A claim whose caller went away before its row
came back (a cancelled worker) is released at once, or its row would wait for the lease to end.

No caller waits without a bound: each round trip is bounded (access.py), a batch whose round trip
failed in any way fails all its callers with StoreError, and should the task running the batches
die anyway, every caller it had not answered is failed and the next call starts a new one.

Dead workers are found by their sessions (presence.py): each worker id is registered under this
store's session before its first claim, and at most every `PROBE_SECONDS` a batch of claims is
preceded by the probe that takes back the rows of workers whose sessions are gone.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from adapters.postgres.database import Database, finish
from adapters.postgres.presence import Presence
from adapters.sql.job_rows import job_from_row
from ports.errors import StoreError
from ports.jobs import Job, Lease

log = logging.getLogger("vidrelay.postgres")

_CLAIM = "SELECT * FROM vidrelay_claim_jobs($1, $2, $3, $4, $5, $6, $7)"
_RELEASE_ORPHAN = """
    UPDATE jobs SET attempts = greatest(attempts - 1, 0), claimed_by = NULL, lease_until = NULL
    WHERE id = $1 AND token = $2 AND claimed_by IS NOT NULL
"""


@dataclass(frozen=True, slots=True)
class _Group:
    worker: str
    lease_seconds: float
    paused: tuple[str, ...]


@dataclass(slots=True)
class _Asked:
    now: float
    future: asyncio.Future[Job | None]


@dataclass(slots=True)
class _Batch:
    claims: dict[_Group, list[_Asked]] = field(default_factory=dict)
    completions: list[tuple[Lease, asyncio.Future[bool]]] = field(default_factory=list)

    def futures(self) -> list[asyncio.Future[Any]]:
        asked = [a.future for group in self.claims.values() for a in group]
        return [*asked, *(done for _, done in self.completions)]


class ClaimBatcher:
    def __init__(self, db: Database, presence: Presence) -> None:
        self._db = db
        self._presence = presence
        self._next = _Batch()
        self._running = _Batch()
        self._runner: asyncio.Task[None] | None = None

    async def claim(self, worker: str, now: float, lease_seconds: float, paused: Sequence[str]) -> Job | None:
        future: asyncio.Future[Job | None] = asyncio.get_running_loop().create_future()
        group = _Group(worker, lease_seconds, tuple(sorted(paused)))
        self._next.claims.setdefault(group, []).append(_Asked(now, future))
        self._kick()
        return await future

    async def complete(self, lease: Lease) -> bool:
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._next.completions.append((lease, future))
        self._kick()
        return await future

    def _kick(self) -> None:
        if self._runner is None or self._runner.done():
            self._runner = asyncio.create_task(self._run(), name="vidrelay-pg-claims")
            self._runner.add_done_callback(self._ended)

    async def _run(self) -> None:
        await asyncio.sleep(0)  # whoever submits in this same turn joins the batch
        while self._next.claims or self._next.completions:
            self._running, self._next = self._next, _Batch()
            if self._running.claims:
                await self._presence.before_claims(self._db, [group.worker for group in self._running.claims])
            groups: list[tuple[_Group | None, list[_Asked]]] = list(self._running.claims.items())
            for n, (group, asked) in enumerate(groups or [(None, [])]):
                completions = self._running.completions if n == 0 else []
                try:
                    await self._round_trip(group, asked, completions)
                except Exception as error:  # a bug of ours, or the driver's: its callers hear of it
                    log.exception("postgres: a claims round trip failed")
                    _fail_all([a.future for a in asked] + [done for _, done in completions], error)
            self._running = _Batch()

    def _ended(self, runner: asyncio.Task[None]) -> None:
        """The runner ended (its work done, cancelled, or died): nobody it was answering is left
        waiting, and work submitted meanwhile gets a runner of its own."""
        error = StoreError("the PostgreSQL claims task stopped")
        if not runner.cancelled() and runner.exception() is not None:
            log.error("postgres: the claims task died", exc_info=runner.exception())
        _fail_all(self._running.futures(), error)
        self._running = _Batch()
        if (self._next.claims or self._next.completions) and not runner.cancelled():
            self._kick()

    async def _round_trip(
        self,
        group: _Group | None,
        asked: list[_Asked],
        completions: list[tuple[Lease, asyncio.Future[bool]]],
    ) -> None:
        worker, lease_seconds, paused = (
            ("", 0.0, ()) if group is None else (group.worker, group.lease_seconds, group.paused)
        )
        at = min((a.now for a in asked), default=0.0)
        ids = [lease.job_id for lease, _ in completions]
        tokens = [lease.token for lease, _ in completions]
        wanted, gone = len(asked), list(paused)
        try:
            rows = await self._db.fetch(_CLAIM, worker, at, lease_seconds, wanted, gone, ids, tokens)
        except StoreError as error:
            _fail_all([a.future for a in asked] + [done for _, done in completions], error)
            return
        deleted = {row[0] for row in rows if row[0] is not None}
        for lease, done in completions:
            if not done.done():
                done.set_result(lease.job_id in deleted)
        jobs = sorted((job_from_row(tuple(row)[1:]) for row in rows if row[0] is None), key=_id)
        for a in asked:
            job = jobs.pop(0) if jobs else None
            if a.future.done():  # its caller went away
                if job is not None:
                    await self._release_orphan(job)
            else:
                a.future.set_result(job)

    async def _release_orphan(self, job: Job) -> None:
        try:
            await self._db.execute(_RELEASE_ORPHAN, job.id, job.token)
        except StoreError as error:
            log.warning(
                "postgres: job %d was claimed for a worker that stopped; its lease will end",
                job.id,
                exc_info=error,
            )

    async def close(self) -> None:
        """Let the round trips already submitted finish, for at most one call's bound."""
        if self._runner is not None:
            await finish(self._runner, self._db.limits.call_seconds)


def _id(job: Job) -> int:
    return job.id


def _fail_all(futures: Sequence[asyncio.Future[Any]], error: BaseException) -> None:
    for future in futures:
        if not future.done():
            future.set_exception(StoreError(str(error) or type(error).__name__))
