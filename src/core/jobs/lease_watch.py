"""The lease watch: an attempt whose lease could not be renewed before its end stops at once.

The heartbeat renews; when it cannot (the database is unreachable, silent, or slow), nothing it
does can tell the attempt. The watch compares each held job's lease end (the local estimate, see
in_flight.py) with the monotonic clock and stops every attempt whose lease has ended: from then
on another worker may hold the job, and this one must neither finish it nor speak for it. It
sleeps until the next lease end, so it costs nothing while leases are renewed.
"""

from __future__ import annotations

import logging

from core.jobs.fields import log_fields
from core.jobs.in_flight import InFlight, StopReason
from ports.clock import Clock

log = logging.getLogger("vidrelay.engine")

_RESOLUTION_SECONDS = 0.01


class LeaseWatch:
    def __init__(self, *, clock: Clock, in_flight: InFlight, idle_seconds: float) -> None:
        """`idle_seconds`: how long to sleep when no lease ends sooner (a new claim's lease always
        ends later than that: it is a whole lease away)."""
        self._clock = clock
        self._in_flight = in_flight
        self._idle = idle_seconds

    async def run(self) -> None:
        while True:
            await self._clock.sleep(self.expire())

    def expire(self) -> float:
        """Stop the attempts whose lease has ended; how long until the next one ends."""
        now = self._clock.monotonic()
        next_end = now + self._idle
        for held in self._in_flight.all():
            if held.stopped is not None:
                continue
            if held.lease_ends_at <= now:
                log.warning(
                    "job's lease could not be renewed before its end: its attempt stops now",
                    extra=log_fields(held.job),
                )
                held.stop(StopReason.EXPIRED)
            else:
                next_end = min(next_end, held.lease_ends_at)
        return max(next_end - now, _RESOLUTION_SECONDS)
