"""This process's claims on the queue: the next job for a free worker, and when to look again.

A claim spends the attempt and takes a lease in one write (see ports.queue); the job is held
(`InFlight`) from the moment the claim returns, so the heartbeat renews it from then on and the
lease watch stops its attempt if it cannot. Keys
whose circuit breaker is open are not claimed.
"""

from __future__ import annotations

from core.jobs.breaker import CircuitBreakers
from core.jobs.in_flight import InFlight
from core.jobs.store_health import StoreHealth
from ports.clock import Clock
from ports.jobs import Job
from ports.queue import JobQueue


class Claims:
    def __init__(
        self,
        *,
        queue: JobQueue,
        clock: Clock,
        worker_id: str,
        lease_seconds: float,
        breakers: CircuitBreakers,
        in_flight: InFlight,
        health: StoreHealth,
    ) -> None:
        """`worker_id`: one per process, every worker task of the engine claims under it."""
        self._queue = queue
        self._clock = clock
        self._worker_id = worker_id
        self._lease_seconds = lease_seconds
        self._breakers = breakers
        self._in_flight = in_flight
        self._health = health
        self._progress_at = clock.now()

    def started(self) -> None:
        """The engine starts: nothing was claimable for it before."""
        self._progress_at = self._clock.now()

    async def claim(self, *, quick_only: bool = False) -> Job | None:
        """The next job; `quick_only`: the next quick one (the quick lane, see ports.queue)."""
        now, sent = self._clock.now(), self._clock.monotonic()
        # A claim cancelled mid-way (a stop past its grace) may have committed unseen: its row
        # is let go by a later heartbeat (or boot), like any claim whose answer was lost.
        paused = self._breakers.paused_keys(now)
        claiming = self._queue.claim(self._worker_id, now, self._lease_seconds, paused, quick_only=quick_only)
        job = await self._health.write(claiming)
        if job is not None:
            # The lease runs from when the claim was sent, by this process's reckoning: the store
            # took it then or later, so the lease really ends then or later (see in_flight.py).
            self._in_flight.hold(job, now, sent + self._lease_seconds)
            self._progress_at = now
        return job

    def paused(self, job: Job) -> bool:
        """Whether `job`'s key is paused now: a job claimed before its breaker opened must not run."""
        return job.key in self._breakers.paused_keys(self._clock.now())

    async def stalled_for(self, now: float, bound: float) -> float | None:
        """How long claimable work has waited while this process claimed nothing, once that is
        longer than `bound`; None otherwise. Asked only while a worker is free (a busy pool is
        capacity, not a fault). StoreError when the store cannot say."""
        if now - self._progress_at <= bound:
            return None
        due = await self._queue.next_wakeup(self._worker_id, now, self._breakers.paused_keys(now))
        if due is None or due > now - bound:
            return None
        return now - max(due, self._progress_at)

    async def next_due(self, now: float) -> float | None:
        """When a job may next be claimable: the earliest due row, or a breaker reopening."""
        due = await self._queue.next_wakeup(self._worker_id, now, self._breakers.paused_keys(now))
        times = [t for t in (due, self._breakers.next_reopening()) if t is not None]
        return min(times, default=None)
