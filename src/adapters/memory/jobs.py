"""The workers' queue in memory: claims, fenced finishing writes, heartbeats, dead holders."""

from __future__ import annotations

import copy
from collections.abc import Collection, Sequence
from dataclasses import replace

from adapters.memory.tables import MemoryTablesUser
from ports.jobs import FailedJob, Guard, HandledUrlGuard, Job, Lease, NewJob, SingletonGuard
from ports.json import Payload
from ports.queue import JobQueue

FOREVER = float("inf")


class MemoryJobQueue(MemoryTablesUser, JobQueue):
    async def enqueue(self, job: NewJob, now: float, guard: Guard | None = None) -> int | None:
        tables = self._tables
        match guard:
            case HandledUrlGuard(chat_id=chat, message_id=message, url=url):
                if (chat, message, url) in tables.handled:
                    return None
                tables.handled[(chat, message, url)] = now
            case SingletonGuard():
                if any(j.name == job.name for j in tables.jobs.values()):
                    return None
        return tables.insert_job(job, now)

    async def claim(
        self,
        worker_id: str,
        now: float,
        lease_seconds: float,
        paused_keys: Collection[str] = (),
        quick_only: bool = False,
    ) -> Job | None:
        self._take_back(worker_id, dead_before=now)
        held = [j for j in self._tables.jobs.values() if j.claimed_by == worker_id]
        if any(j.suspect for j in held):
            return None
        claimable = (
            j
            for j in self._tables.jobs.values()
            if _claimable(j, now, () if quick_only else paused_keys)
            and (not quick_only or (j.turn < 0 and not j.suspect))
        )
        first = min(claimable, key=fair_order, default=None)
        if first is None or (first.suspect and held):
            return None
        return self._take(first, worker_id, now + lease_seconds)

    async def claim_exhausted(self, worker_id: str, now: float, lease_seconds: float) -> list[Job]:
        self._take_back(worker_id, dead_before=now)
        spent = [
            j for j in self._tables.jobs.values() if j.claimed_by is None and j.attempts >= j.max_attempts
        ]
        return [self._take(job, worker_id, now + lease_seconds) for job in spent]

    async def recover(self, worker_id: str) -> int:
        return self._take_back(worker_id, dead_before=FOREVER)

    def _take(self, job: Job, worker_id: str, lease_until: float) -> Job:
        claimed = replace(
            job, attempts=job.attempts + 1, claimed_by=worker_id, lease_until=lease_until, token=job.token + 1
        )
        self._tables.jobs[job.id] = claimed
        return copy.deepcopy(claimed)

    def _take_back(self, worker_id: str, dead_before: float) -> int:
        """Every row of each holder (but `worker_id`) whose leases have all ended comes back suspect;
        a holder of several rows is charged for none of them."""
        by_holder: dict[str, list[Job]] = {}
        for job in self._tables.jobs.values():
            if job.claimed_by is not None and job.claimed_by != worker_id:
                by_holder.setdefault(job.claimed_by, []).append(job)
        taken = 0
        for rows in by_holder.values():
            if max(j.lease_until or 0.0 for j in rows) > dead_before:
                continue
            refund = 1 if len(rows) > 1 else 0
            for job in rows:
                attempts = max(job.attempts - refund, 0)
                self._tables.jobs[job.id] = replace(
                    job, attempts=attempts, suspect=True, claimed_by=None, lease_until=None
                )
            taken += len(rows)
        return taken

    async def renew(
        self, worker_id: str, leases: Sequence[Lease], now: float, lease_seconds: float
    ) -> list[Lease]:
        lost = []
        for lease in leases:
            job = self._held(lease)
            if job is None or job.claimed_by != worker_id:
                lost.append(lease)
            else:
                self._tables.jobs[job.id] = replace(job, lease_until=now + lease_seconds)
        named = set(leases)
        for job in list(self._tables.jobs.values()):
            if job.claimed_by == worker_id and job.lease not in named and (job.lease_until or 0.0) <= now:
                self._let_go(job.lease, attempts=max(job.attempts - 1, 0))
        return lost

    async def complete(self, lease: Lease) -> bool:
        if self._held(lease) is None:
            return False
        del self._tables.jobs[lease.job_id]
        return True

    async def retry_later(self, lease: Lease, available_at: float, error: str) -> bool:
        return self._let_go(lease, available_at=available_at, last_error=error, suspect=False)

    async def release(self, lease: Lease, available_at: float) -> bool:
        job = self._held(lease)
        return job is not None and self._let_go(
            lease, available_at=available_at, attempts=max(job.attempts - 1, 0)
        )

    def _let_go(self, lease: Lease, **changes: object) -> bool:
        return self._change(lease, claimed_by=None, lease_until=None, **changes)

    async def update_payload(self, lease: Lease, payload: Payload) -> bool:
        return self._change(lease, payload=copy.deepcopy(payload))

    def _change(self, lease: Lease, **changes: object) -> bool:
        job = self._held(lease)
        if job is None:
            return False
        self._tables.jobs[job.id] = replace(job, **changes)  # type: ignore[arg-type]
        return True

    def _held(self, lease: Lease) -> Job | None:
        job = self._tables.jobs.get(lease.job_id)
        held = job is not None and job.token == lease.token and job.claimed_by is not None
        return job if held else None

    async def dead_letter(self, lease: Lease, error: str, now: float) -> FailedJob | None:
        job = self._held(lease)
        if job is None:
            return None
        tables = self._tables
        del tables.jobs[job.id]
        failed = FailedJob(
            id=tables.next_failed_id,
            job_id=job.id,
            name=job.name,
            payload=job.payload,
            error=error,
            attempts=min(job.attempts, job.max_attempts),
            max_attempts=job.max_attempts,
            created_at=job.created_at,
            failed_at=now,
            key=job.key,
            owner_id=job.owner_id,
        )
        tables.next_failed_id += 1
        tables.failed[failed.id] = failed
        return copy.deepcopy(failed)

    async def next_wakeup(
        self, worker_id: str, now: float, paused_keys: Collection[str] = ()
    ) -> float | None:
        jobs = [j for j in self._tables.jobs.values() if j.key not in paused_keys]
        free = [j.available_at for j in jobs if j.claimed_by is None]
        # A lease already ended says nothing new: its holder's next lease end, or the claim, will.
        ends = [
            j.lease_until
            for j in jobs
            if j.claimed_by not in (None, worker_id) and (j.lease_until or 0) > now
        ]
        return min([*free, *(end for end in ends if end is not None)], default=None)


def fair_order(job: Job) -> tuple[int, int]:
    return (job.turn, job.id)


def _claimable(job: Job, now: float, paused_keys: Collection[str]) -> bool:
    return job.claimed_by is None and job.available_at <= now and job.key not in paused_keys
