"""Making jobs: enqueueing a registered type with its attempt budget, and the periodic ticks."""

from __future__ import annotations

import logging

from core.jobs.parts import EngineParts
from core.jobs.registry import JobType
from ports.jobs import Guard, NewJob, SingletonGuard
from ports.json import Payload

log = logging.getLogger("vidrelay.engine")


class Producer:
    def __init__(self, parts: EngineParts) -> None:
        self._p = parts

    async def enqueue(self, job: NewJob, guard: Guard | None = None) -> int | None:
        p = self._p
        try:
            job_id = await p.queue.enqueue(job, p.clock.now(), guard)
        except Exception:
            p.store_health.refused(p.clock.now())
            raise
        p.store_health.wrote()
        if job_id is not None:
            p.events.job_enqueued(job.name)
            p.wake.fire()
        return job_id

    def new_job(self, name: str, payload: Payload, *, key: str = "", owner_id: int | None = None) -> NewJob:
        job_type = self._p.registry.get(name)
        if job_type is None:
            raise KeyError(f"no job type is registered as {name!r}")
        attempts = job_type.max_attempts or self._p.config.max_attempts
        return NewJob(name, payload, attempts, key=key, owner_id=owner_id)

    async def tick(self, job_type: JobType) -> None:
        """Enqueue `job_type` now and then every interval; never a second while one waits or runs."""
        interval = job_type.interval_seconds or 0.0
        while True:
            try:
                await self.enqueue(NewJob(job_type.name, {}, max_attempts=1), SingletonGuard())
            except Exception:
                log.exception("periodic enqueue of %s failed", job_type.name)
            await self._p.clock.sleep(interval)
