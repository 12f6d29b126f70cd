"""Making jobs: enqueueing a registered type with its attempt budget, and the periodic ticks."""

from __future__ import annotations

import logging
from dataclasses import replace

from core.jobs.registry import JobRegistry, JobType
from core.jobs.signals import Signal
from core.jobs.store_health import StoreHealth
from core.jobs.submitter import JobSubmitter
from ports.clock import Clock
from ports.jobs import Guard, NewJob, SingletonGuard
from ports.json import Payload
from ports.queue import JobQueue
from ports.telemetry import JobEvents

log = logging.getLogger("vidrelay.engine")


class Producer(JobSubmitter):
    def __init__(
        self,
        *,
        queue: JobQueue,
        clock: Clock,
        registry: JobRegistry,
        max_attempts: int,
        events: JobEvents,
        wake: Signal,
        quick_wake: Signal,
        health: StoreHealth,
    ) -> None:
        """`quick_wake`: fired for a quick row only, so the quick lane looks only when there is
        something for it (an idle worker's look is a write on SQLite)."""
        self._queue = queue
        self._clock = clock
        self._registry = registry
        self._max_attempts = max_attempts
        self._events = events
        self._wake = wake
        self._quick_wake = quick_wake
        self._health = health

    async def enqueue(self, job: NewJob, guard: Guard | None = None) -> int | None:
        job_id = await self._health.write(self._queue.enqueue(job, self._clock.now(), guard))
        if job_id is not None:
            self._events.job_enqueued(job.name)
            self._wake.fire()
            if job.quick:
                self._quick_wake.fire()
        return job_id

    async def submit(
        self,
        name: str,
        payload: Payload,
        *,
        key: str = "",
        owner_id: int | None = None,
        requester: int | None = None,
        quick: bool = False,
        guard: Guard | None = None,
        available_at: float = 0.0,
    ) -> int | None:
        job = replace(
            self.new_job(name, payload, key=key, owner_id=owner_id, requester=requester, quick=quick),
            available_at=available_at,
        )
        return await self.enqueue(job, guard)

    def new_job(
        self,
        name: str,
        payload: Payload,
        *,
        key: str = "",
        owner_id: int | None = None,
        requester: int | None = None,
        quick: bool = False,
    ) -> NewJob:
        job_type = self._registry.get(name)
        if job_type is None:
            raise KeyError(f"no job type is registered as {name!r}")
        attempts = job_type.max_attempts or self._max_attempts
        return NewJob(name, payload, attempts, key=key, owner_id=owner_id, requester=requester, quick=quick)

    async def tick(self, job_type: JobType) -> None:
        """Enqueue `job_type` now and then every interval; never a second while one waits or runs."""
        interval = job_type.interval_seconds or 0.0
        while True:
            try:
                await self.enqueue(NewJob(job_type.name, {}, max_attempts=1), SingletonGuard())
            except Exception:
                log.exception("periodic enqueue of %s failed", job_type.name)
            await self._clock.sleep(interval)
