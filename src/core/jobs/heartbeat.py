"""One heartbeat for all the jobs this process holds: their leases stay short and stay theirs.

It writes even when nothing is held, so it is also the probe that tells /healthz whether the
store takes writes. A lease the store says is lost belongs to another claim now: the attempt
holding it is stopped, since its finishing write would change nothing anyway.
"""

from __future__ import annotations

import logging

from core.jobs.fields import log_fields
from core.jobs.health import StoreHealth
from core.jobs.in_flight import InFlight
from ports.clock import Clock
from ports.queue import JobQueue

log = logging.getLogger("vidrelay.engine")


class Heartbeat:
    def __init__(
        self,
        *,
        queue: JobQueue,
        clock: Clock,
        worker_id: str,
        in_flight: InFlight,
        health: StoreHealth,
        every_seconds: float,
        lease_seconds: float,
    ) -> None:
        self._queue = queue
        self._clock = clock
        self._worker_id = worker_id
        self._in_flight = in_flight
        self._health = health
        self._every = every_seconds
        self._lease_seconds = lease_seconds

    async def run(self) -> None:
        while True:
            await self._clock.sleep(self._every)
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
