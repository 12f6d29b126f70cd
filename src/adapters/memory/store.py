"""Every store port in process memory: for development and fast tests.

Each method runs to completion without awaiting, so on one event loop every operation is
atomic — the same guarantees the SQL stores get from transactions.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from ports.blobs import BlobIndex, BlobRecord
from ports.caches import HandledUrls, InfoCache
from ports.jobs import FailedJob, Guard, HandledUrlGuard, Job, JobStore, NewJob, QueueCounts, SingletonGuard
from ports.json import Payload
from ports.media import VideoInfo
from ports.pending import CancelOutcome, PendingRequest, PendingStore
from ports.secrets import InstallSecrets


@dataclass(frozen=True, slots=True)
class _CachedInfo:
    entries: tuple[VideoInfo, ...]
    canonical: frozenset[str]
    created_at: float


class MemoryStore(JobStore, PendingStore, BlobIndex, InfoCache, HandledUrls, InstallSecrets):
    def __init__(self) -> None:
        self._jobs: dict[int, Job] = {}
        self._failed: dict[int, FailedJob] = {}
        self._next_job_id = 1
        self._next_failed_id = 1
        self._handled: dict[tuple[int, int, str], float] = {}
        self._pending: dict[str, PendingRequest] = {}
        self._blobs: dict[str, BlobRecord] = {}
        self._info: dict[str, _CachedInfo] = {}
        self._secrets: dict[str, bytes] = {}

    async def close(self) -> None:
        return None

    # JobStore ------------------------------------------------------------------------------

    async def enqueue(self, job: NewJob, now: float, guard: Guard | None = None) -> int | None:
        if not self._guard_allows(job, guard):
            return None
        if isinstance(guard, HandledUrlGuard):
            self._handled[(guard.chat_id, guard.message_id, guard.url)] = now
        return self._insert(job, now)

    def _guard_allows(self, job: NewJob, guard: Guard | None) -> bool:
        match guard:
            case HandledUrlGuard(chat_id=chat, message_id=message, url=url):
                return (chat, message, url) not in self._handled
            case SingletonGuard():
                return all(j.name != job.name for j in self._jobs.values())
        return True

    def _insert(self, job: NewJob, now: float) -> int:
        job_id = self._next_job_id
        self._next_job_id += 1
        self._jobs[job_id] = Job(
            id=job_id,
            name=job.name,
            payload=copy.deepcopy(job.payload),
            attempts=0,
            max_attempts=job.max_attempts,
            available_at=job.available_at or now,
            created_at=now,
            key=job.key,
            owner_id=job.owner_id,
        )
        return job_id

    async def claim(
        self, worker_id: str, now: float, lease_seconds: float, paused_keys: Collection[str] = ()
    ) -> Job | None:
        for job in self._jobs.values():
            if self._claimable(job, now, paused_keys):
                claimed = replace(
                    job, attempts=job.attempts + 1, claimed_by=worker_id, lease_until=now + lease_seconds
                )
                self._jobs[job.id] = claimed
                return copy.deepcopy(claimed)
        return None

    @staticmethod
    def _claimable(job: Job, now: float, paused_keys: Collection[str]) -> bool:
        leased = job.lease_until is not None and job.lease_until > now
        return not leased and job.available_at <= now and job.key not in paused_keys

    async def complete(self, job_id: int) -> None:
        self._jobs.pop(job_id, None)

    async def retry_later(self, job_id: int, available_at: float, error: str) -> None:
        self._update(job_id, available_at=available_at, last_error=error, claimed_by=None, lease_until=None)

    async def release(self, job_id: int, available_at: float) -> None:
        job = self._jobs.get(job_id)
        if job is not None:
            self._update(
                job_id,
                attempts=max(job.attempts - 1, 0),
                available_at=available_at,
                claimed_by=None,
                lease_until=None,
            )

    async def update_payload(self, job_id: int, payload: Payload) -> None:
        self._update(job_id, payload=copy.deepcopy(payload))

    def _update(self, job_id: int, **changes: object) -> None:
        job = self._jobs.get(job_id)
        if job is not None:
            self._jobs[job_id] = replace(job, **changes)  # type: ignore[arg-type]

    async def dead_letter(self, job_id: int, error: str, now: float) -> FailedJob | None:
        job = self._jobs.pop(job_id, None)
        if job is None:
            return None
        failed = FailedJob(
            id=self._next_failed_id,
            job_id=job.id,
            name=job.name,
            payload=job.payload,
            error=error,
            attempts=job.attempts,
            max_attempts=job.max_attempts,
            created_at=job.created_at,
            failed_at=now,
            key=job.key,
            owner_id=job.owner_id,
        )
        self._next_failed_id += 1
        self._failed[failed.id] = failed
        return copy.deepcopy(failed)

    async def recover_leases(self) -> int:
        leased = [j for j in self._jobs.values() if j.claimed_by is not None]
        for job in leased:
            self._jobs[job.id] = replace(job, claimed_by=None, lease_until=None)
        return len(leased)

    async def exhausted(self, now: float) -> list[Job]:
        return [
            copy.deepcopy(j)
            for j in self._jobs.values()
            if j.attempts >= j.max_attempts and (j.lease_until is None or j.lease_until <= now)
        ]

    async def next_wakeup(self, now: float, paused_keys: Collection[str] = ()) -> float | None:
        times = [
            j.lease_until if j.lease_until is not None and j.lease_until > now else j.available_at
            for j in self._jobs.values()
            if j.key not in paused_keys
        ]
        return min(times, default=None)

    async def counts(self) -> QueueCounts:
        running = sum(1 for j in self._jobs.values() if j.claimed_by is not None)
        return QueueCounts(len(self._jobs) - running, running, len(self._failed))

    async def waiting_for_owner(self, owner_id: int) -> int:
        return sum(1 for j in self._jobs.values() if j.owner_id == owner_id)

    async def list_jobs(self, limit: int = 100) -> list[Job]:
        return [copy.deepcopy(j) for j in list(self._jobs.values())[:limit]]

    async def list_failed(self, limit: int = 100) -> list[FailedJob]:
        return [copy.deepcopy(f) for f in list(self._failed.values())[:limit]]

    async def retry_failed(self, failed_ids: Sequence[int] | None, now: float) -> list[int]:
        chosen = [f for f in self._failed.values() if failed_ids is None or f.id in failed_ids]
        new_ids = []
        for failed in chosen:
            del self._failed[failed.id]
            job = NewJob(
                failed.name, failed.payload, failed.max_attempts, key=failed.key, owner_id=failed.owner_id
            )
            new_ids.append(self._insert(job, now))
        return new_ids

    async def purge_failed(self) -> int:
        count = len(self._failed)
        self._failed.clear()
        return count

    # PendingStore ----------------------------------------------------------------------

    async def park(self, request: PendingRequest) -> None:
        self._pending[request.id] = copy.deepcopy(request)

    async def pending(self, pending_id: str) -> PendingRequest | None:
        request = self._pending.get(pending_id)
        return copy.deepcopy(request) if request else None

    async def adopt(self, pending_id: str, now: float) -> int | None:
        request = self._pending.pop(pending_id, None)
        return None if request is None else self._insert(request.job, now)

    async def cancel(self, pending_id: str, user_id: int) -> CancelOutcome:
        request = self._pending.get(pending_id)
        if request is None:
            return CancelOutcome.GONE
        if request.user_id != user_id:
            return CancelOutcome.NOT_REQUESTER
        del self._pending[pending_id]
        return CancelOutcome.CANCELLED

    async def expire(self, created_before: float) -> list[PendingRequest]:
        old = [r for r in self._pending.values() if r.created_at < created_before]
        for request in old:
            del self._pending[request.id]
        return old

    async def pinned_keys(self) -> set[str]:
        return {r.blob_key for r in self._pending.values() if r.blob_key}

    # BlobIndex -------------------------------------------------------------------------

    async def blob(self, key: str) -> BlobRecord | None:
        return self._blobs.get(key)

    async def put_blob(self, record: BlobRecord) -> None:
        self._blobs[record.key] = record

    async def set_file_id(self, key: str, file_id: str, file_unique_id: str, now: float) -> None:
        self._update_blob(key, file_id=file_id, file_unique_id=file_unique_id, last_used=now)

    async def clear_file_id(self, key: str) -> None:
        self._update_blob(key, file_id=None, file_unique_id=None)

    async def touch_blob(self, key: str, now: float) -> None:
        self._update_blob(key, last_used=now)

    def _update_blob(self, key: str, **changes: object) -> None:
        record = self._blobs.get(key)
        if record is not None:
            self._blobs[key] = replace(record, **changes)  # type: ignore[arg-type]

    async def detach_bytes(self, key: str, file_name: str) -> bool:
        record = self._blobs.get(key)
        if record is None or record.file_name != file_name or key in await self.pinned_keys():
            return False
        if record.file_id is None:
            del self._blobs[key]
        else:
            self._blobs[key] = replace(record, file_name=None, size=None)
        return True

    async def forget_blob(self, key: str) -> None:
        self._blobs.pop(key, None)

    async def all_blobs(self) -> list[BlobRecord]:
        return list(self._blobs.values())

    # InfoCache -------------------------------------------------------------------------

    async def cached_info(self, url: str, fresh_after: float) -> list[VideoInfo] | None:
        cached = self._info.get(url)
        if cached is None or cached.created_at < fresh_after:
            return None
        return list(cached.entries)

    async def cache_info(self, urls: Sequence[str], entries: Sequence[VideoInfo], now: float) -> None:
        canonical = frozenset(e.webpage_url for e in entries if e.webpage_url)
        cached = _CachedInfo(tuple(entries), canonical, now)
        for url in {*urls, *canonical}:
            self._info[url] = cached

    async def evict_info(self, url: str) -> None:
        cached = self._info.get(url)
        doomed = {url} | (set(cached.canonical) if cached else set())
        for key, other in list(self._info.items()):
            if key in doomed or other.canonical & doomed:
                del self._info[key]

    async def sweep_info(self, created_before: float) -> int:
        old = [url for url, cached in self._info.items() if cached.created_at < created_before]
        for url in old:
            del self._info[url]
        return len(old)

    # HandledUrls -----------------------------------------------------------------------

    async def remember_message(self, chat_id: int, message_id: int, now: float) -> None:
        # The empty URL marks the message itself: no link is ever empty, so it never blocks a job.
        self._handled.setdefault((chat_id, message_id, ""), now)

    async def knows_message(self, chat_id: int, message_id: int) -> bool:
        return any(chat == chat_id and message == message_id for chat, message, _ in self._handled)

    async def forget_handled(self, chat_id: int, message_id: int, url: str) -> None:
        self._handled.pop((chat_id, message_id, url), None)

    async def sweep_handled(self, created_before: float) -> int:
        old = [key for key, at in self._handled.items() if at < created_before]
        for key in old:
            del self._handled[key]
        return len(old)

    # InstallSecrets --------------------------------------------------------------------

    async def install_secret(self, name: str, candidate: bytes) -> bytes:
        return self._secrets.setdefault(name, bytes(candidate))
