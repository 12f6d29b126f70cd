"""One heartbeat for all the jobs this process holds: their leases stay short and stay theirs.

It writes even when nothing is held, so it is also the probe that tells /healthz whether the
store takes writes. A lease the store says is lost belongs to another claim now: the attempt
holding it is stopped, since its finishing write would change nothing anyway.
"""

from __future__ import annotations

import logging

from core.jobs.fields import log_fields
from core.jobs.parts import EngineParts

log = logging.getLogger("vidrelay.engine")


class Heartbeat:
    def __init__(self, parts: EngineParts) -> None:
        self._p = parts

    async def run(self) -> None:
        p = self._p
        while True:
            await p.clock.sleep(p.config.heartbeat_seconds)
            await self.beat()

    async def beat(self) -> None:
        p = self._p
        leases = p.in_flight.leases()
        try:
            lost = await p.queue.renew(p.worker_id, leases, p.clock.now(), p.config.lease_seconds)
        except Exception:
            p.store_health.refused(p.clock.now())
            log.warning("heartbeat: %d lease(s) not renewed this time", len(leases), exc_info=True)
            return
        p.store_health.wrote()
        for lease in lost:
            held = p.in_flight.lose(lease)
            if held is not None:
                log.warning("job lost its lease to another claim: stopping it", extra=log_fields(held.job))
