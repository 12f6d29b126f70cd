"""One heartbeat for all the jobs this process holds: their leases stay short and stay theirs.

It writes even when nothing is held, so it is also the probe that tells /healthz whether the
store takes writes. A lease the store says is lost belongs to another claim now: the attempt
holding it is stopped, since its finishing write would change nothing anyway. A job its user
cancelled (ports.cancels) is stopped the same way, then settled as done; a cancel made here or
announced by another process (`check_now`) makes the next beat come at once, not at its time.
"""

from __future__ import annotations

import asyncio
import logging

from core.jobs.fields import log_fields
from core.jobs.health import StoreHealth
from core.jobs.in_flight import CancelledByUser, InFlight
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

    def check_now(self) -> None:
        """A job may have been cancelled: beat now (a beat running already is followed by one)."""
        self._check.set()

    async def run(self) -> None:
        while True:
            await first_of(self._clock.sleep(self._every), self._check.wait())
            self._check.clear()
            await self.beat()

    async def beat(self) -> None:
        leases = self._in_flight.leases()
        try:
            lost = await self._health.write(
                self._queue.renew(self._worker_id, leases, self._clock.now(), self._lease_seconds)
            )
        except Exception:
            log.warning("heartbeat: %d lease(s) not renewed this time", len(leases), exc_info=True)
            return
        for lease in lost:
            held = self._in_flight.lose(lease)
            if held is not None:
                log.warning("job lost its lease to another claim: stopping it", extra=log_fields(held.job))
        await self._stop_cancelled([lease for lease in leases if lease not in lost])

    async def _stop_cancelled(self, leases: list[Lease]) -> None:
        if self._cancels is None or not leases:
            return
        try:
            asked = await self._cancels.cancel_asked(leases)
        except Exception:
            log.warning("heartbeat: the cancels could not be read this time", exc_info=True)
            return
        for lease in asked:
            held = self._in_flight.stop(lease, CancelledByUser)
            if held is not None:
                log.info("job cancelled by its user: stopping it", extra=log_fields(held.job))
