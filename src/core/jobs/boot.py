"""What the engine does once before its workers start: take back the rows of a dead previous
process (crash attribution, on a store this process is the only user of), and bury the jobs
that used up their attempts without finishing — the ones that kept killing the process."""

from __future__ import annotations

import logging

from core.jobs.in_flight import InFlight
from core.jobs.registry import JobRegistry
from core.jobs.settling import Settler
from core.lifecycle.events import Claimed
from core.lifecycle.retry_policy import Random, RetryPolicy
from core.lifecycle.state import JobState
from core.lifecycle.step import step
from ports.clock import Clock
from ports.queue import JobQueue

log = logging.getLogger("vidrelay.engine")


class Boot:
    def __init__(
        self,
        *,
        queue: JobQueue,
        clock: Clock,
        registry: JobRegistry,
        worker_id: str,
        lease_seconds: float,
        sole_instance: bool,
        retry: RetryPolicy,
        random: Random,
        in_flight: InFlight,
        settler: Settler,
    ) -> None:
        self._queue = queue
        self._clock = clock
        self._registry = registry
        self._worker_id = worker_id
        self._lease_seconds = lease_seconds
        self._sole_instance = sole_instance
        self._retry = retry
        self._random = random
        self._in_flight = in_flight
        self._settler = settler

    async def run(self) -> int:
        """How many jobs gave up at this boot."""
        if self._sole_instance:
            back = await self._queue.recover(self._worker_id)
            if back:
                log.warning("boot: %d job(s) came back from a process that died", back)
        gave_up = await self._bury_exhausted()
        # Every boot says it (the SPEC), so zero is routine; a job that gave up killed its
        # process at every attempt, and the operator should look at it.
        log.log(logging.WARNING if gave_up else logging.INFO, "boot: %d job(s) gave up at this boot", gave_up)
        return gave_up

    async def _bury_exhausted(self) -> int:
        gave_up = 0
        now = self._clock.now()
        for job in await self._queue.claim_exhausted(self._worker_id, now, self._lease_seconds):
            self._in_flight.hold(job, self._clock.now())  # buried at once: no lease watch needed
            job_type = self._registry.get(job.name)
            periodic = bool(job_type and job_type.interval_seconds)
            state = JobState.before_claim(job, periodic=periodic)
            _, effect = step(state, Claimed(), self._retry, self._random)
            await self._settler.apply(job, effect, job_type)
            gave_up += not periodic
            if periodic:
                log.warning("periodic job dropped after its process died", extra={"job_name": job.name})
        return gave_up
