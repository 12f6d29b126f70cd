"""One heartbeat for all the jobs this process holds: their leases stay short and stay theirs.

It writes even when nothing is held, so it is also the probe that tells /healthz whether the
store takes writes. A lease the store says is lost belongs to another claim now: the attempt
holding it is stopped, since its finishing write would change nothing anyway. Each renewal that
lands moves the held job's local lease end (in_flight.py), measured from when it was sent; a
send under way (`reserve`) is renewed for at least as long as it needs. Renewals never overlap,
so the latest to land is the latest sent. A job its user cancelled (ports.cancels) is stopped
the same way, then settled as done; a cancel made here or announced by another process
(`check_now`) makes the next beat come at once, not at its time.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict

from core.jobs.fields import log_fields
from core.jobs.in_flight import HeldJob, InFlight, StopReason
from core.jobs.store_health import StoreHealth
from core.jobs.tasks import first_of
from ports.cancels import JobCancels
from ports.clock import Clock
from ports.jobs import Lease
from ports.queue import JobQueue

log = logging.getLogger("vidrelay.engine")


class Heartbeat:
    def __init__(
        self,
        *,
        queue: JobQueue,
        cancels: JobCancels | None,
        clock: Clock,
        worker_id: str,
        in_flight: InFlight,
        health: StoreHealth,
        every_seconds: float,
        lease_seconds: float,
    ) -> None:
        self._queue = queue
        self._cancels = cancels
        self._clock = clock
        self._check = asyncio.Event()
        self._worker_id = worker_id
        self._in_flight = in_flight
        self._health = health
        self._every = every_seconds
        self._lease_seconds = lease_seconds
        self._renewing = asyncio.Lock()

    def check_now(self) -> None:
        """A job may have been cancelled: beat now (a beat running already is followed by one)."""
        self._check.set()

    async def run(self) -> None:
        while True:
            await first_of(self._clock.sleep(self._every), self._check.wait())
            self._check.clear()
            await self.beat()

    async def beat(self) -> None:
        async with self._renewing:
            # A job whose finishing write landed holds no lease any more: nothing to renew.
            held = [h for h in self._in_flight.all() if h.stopped is None and not h.let_go]
            sent = self._clock.monotonic()
            groups: dict[float, list[HeldJob]] = defaultdict(list)
            for job in held:
                groups[max(self._lease_seconds, job.needs_until - sent)].append(job)
            if not groups:
                groups[self._lease_seconds] = []  # the probe: does the store take writes?
            for seconds, jobs in groups.items():
                try:
                    await self._renew(jobs, sent, seconds)
                except Exception:
                    log.warning("heartbeat: %d lease(s) not renewed this time", len(jobs), exc_info=True)
                    return
        await self._stop_cancelled([h.job.lease for h in held if h.stopped is None])

    async def _stop_cancelled(self, leases: list[Lease]) -> None:
        if self._cancels is None or not leases:
            return
        try:
            asked = await self._cancels.cancel_asked(leases)
        except Exception:
            log.warning("heartbeat: the cancels could not be read this time", exc_info=True)
            return
        for lease in asked:
            held = self._in_flight.stop(lease, StopReason.CANCELLED)
            if held is not None:
                log.info("job cancelled by its user: stopping it", extra=log_fields(held.job))

    async def reserve(self, held: HeldJob, seconds: float) -> bool:
        """Renew `held`'s lease now for at least `seconds` (a send that may take that long), and
        keep renewing it for that long; False when the store says it is lost. StoreError when the
        store could not be asked."""
        held.needs_until = max(held.needs_until, self._clock.monotonic() + seconds)
        async with self._renewing:
            sent = self._clock.monotonic()
            await self._renew([held], sent, max(self._lease_seconds, held.needs_until - sent))
        return held.stopped is None

    async def _renew(self, jobs: list[HeldJob], sent: float, seconds: float) -> None:
        leases = [job.job.lease for job in jobs]
        lost = set(
            await self._health.write(self._queue.renew(self._worker_id, leases, self._clock.now(), seconds))
        )
        for job in jobs:
            if job.job.lease in lost:
                job.stop(StopReason.LOST)
                log.warning("job lost its lease to another claim: stopping it", extra=log_fields(job.job))
            else:
                job.renewed(sent, seconds)
