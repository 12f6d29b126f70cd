"""A job queue that fails the calls a test chooses, in front of a real store.

The faults a store really has — a file locked past busy_timeout, a dropped connection — fail a
call either before it lands, or after it landed with the answer lost. Both are offered.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Sequence
from typing import Any

from ports.errors import StoreError
from ports.jobs import FailedJob, Guard, Job, Lease, NewJob
from ports.json import Payload
from ports.queue import JobQueue

Chooser = Callable[[str], bool]


class FaultyQueue(JobQueue):
    def __init__(self, inner: JobQueue) -> None:
        self.inner = inner
        self.fails: Chooser = lambda _: False
        self.landed_before_failing = False
        """True: the call lands, then its answer is lost (a connection dropped after the commit)."""
        self.failed: Counter[str] = Counter()

    async def _call(self, name: str, *args: Any) -> Any:
        failing = self.fails(name)
        if failing and not self.landed_before_failing:
            self.failed[name] += 1
            raise StoreError(f"injected failure of {name}")
        result = await getattr(self.inner, name)(*args)
        if failing:
            self.failed[name] += 1
            raise StoreError(f"injected failure of {name}, after it landed")
        return result

    async def enqueue(self, job: NewJob, now: float, guard: Guard | None = None) -> int | None:
        result: int | None = await self._call("enqueue", job, now, guard)
        return result

    async def claim(
        self,
        worker_id: str,
        now: float,
        lease_seconds: float,
        paused_keys: Collection[str] = (),
        quick_only: bool = False,
    ) -> Job | None:
        result: Job | None = await self._call("claim", worker_id, now, lease_seconds, paused_keys, quick_only)
        return result

    async def claim_exhausted(self, worker_id: str, now: float, lease_seconds: float) -> list[Job]:
        result: list[Job] = await self._call("claim_exhausted", worker_id, now, lease_seconds)
        return result

    async def recover(self, worker_id: str) -> int:
        result: int = await self._call("recover", worker_id)
        return result

    async def renew(
        self, worker_id: str, leases: Sequence[Lease], now: float, lease_seconds: float
    ) -> list[Lease]:
        result: list[Lease] = await self._call("renew", worker_id, leases, now, lease_seconds)
        return result

    async def complete(self, lease: Lease) -> bool:
        result: bool = await self._call("complete", lease)
        return result

    async def retry_later(self, lease: Lease, available_at: float, error: str) -> bool:
        result: bool = await self._call("retry_later", lease, available_at, error)
        return result

    async def release(self, lease: Lease, available_at: float) -> bool:
        result: bool = await self._call("release", lease, available_at)
        return result

    async def update_payload(self, lease: Lease, payload: Payload) -> bool:
        result: bool = await self._call("update_payload", lease, payload)
        return result

    async def dead_letter(self, lease: Lease, error: str, now: float) -> FailedJob | None:
        result: FailedJob | None = await self._call("dead_letter", lease, error, now)
        return result

    async def next_wakeup(
        self, worker_id: str, now: float, paused_keys: Collection[str] = ()
    ) -> float | None:
        result: float | None = await self._call("next_wakeup", worker_id, now, paused_keys)
        return result
