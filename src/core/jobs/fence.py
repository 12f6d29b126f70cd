"""Fencing reaches Telegram: an attempt speaks to a chat only while it surely holds its lease.

The store fences every finishing write by the claim's token, but a chat has no token: a worker
that lost its job (cut off from the database, or paused past its lease) and still edits the log
message, or sends the video, does so after the new holder did. So every Telegram call made for a
job first asks its attempt's `Fence`: does the lease, by the conservative local estimate (see
in_flight.py), have at least `margin` seconds left? If not, the attempt is stopped at once and
the call is not made. A send must hold the lease for its whole budget (an upload may take
minutes): it renews the lease for that long first (`reserved`), and the heartbeat keeps at least
that much while the send is under way, so a database that goes away mid-upload cannot hand the
job to another worker before the upload is over.

After the attempt let go of its row normally (the finishing write landed) its last words are
still its own (the log message's last edit): the fence holds then, and after a cancel while the
lease lasts. After any other stop it never does.
"""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from core.jobs.fields import log_fields
from core.jobs.in_flight import AttemptStopped, HeldJob, StopReason
from ports.clock import Clock

log = logging.getLogger("vidrelay.engine")

Reserve = Callable[[HeldJob, float], Awaitable[bool]]
"""Renew `held`'s lease now for at least this many seconds; False when the store says it is lost."""


class Fence:
    def __init__(
        self, held: HeldJob, clock: Clock | None, *, margin_seconds: float, reserve: Reserve
    ) -> None:
        """`clock` None: a lease that never ends (see `always`)."""
        self._held = held
        self._clock = clock
        self._margin = margin_seconds
        self._reserve = reserve

    @classmethod
    def always(cls, held: HeldJob) -> Fence:
        """A fence that holds until stopped: an attempt run outside the engine (tools, tests)."""

        async def kept(_: HeldJob, __: float) -> bool:
            return True

        return cls(held, None, margin_seconds=0.0, reserve=kept)

    def left(self) -> float:
        """Seconds of lease left by the local estimate."""
        if self._clock is None:
            return math.inf
        return self._held.lease_ends_at - self._clock.monotonic()

    @property
    def ended(self) -> bool:
        """The attempt was stopped (its lease lost or run out): it never holds again, whatever
        the clock says. A cancel stops the attempt's work, not its hold on the row: its last
        words (the 🚫 edit) are still its own while the lease lasts."""
        stopped = self._held.stopped
        return stopped is not None and stopped is not StopReason.CANCELLED

    def holds(self) -> bool:
        if self.ended:
            return False
        return self._held.let_go or self.left() >= self._margin

    def check(self) -> None:
        """Before a Telegram call: AttemptStopped (the attempt stopped) unless the fence holds."""
        if self.holds():
            return
        if self._held.stopped is None:
            log.warning(
                "job's lease has %.1fs left, under the %.1fs margin: its attempt stops, no call is made",
                self.left(),
                self._margin,
                extra=log_fields(self._held.job),
            )
            self._held.stop(StopReason.EXPIRED)
        raise AttemptStopped(self._held.stopped or StopReason.EXPIRED)

    @asynccontextmanager
    async def reserved(self, seconds: float) -> AsyncIterator[None]:
        """Hold the lease for `seconds` more (and the margin) while the block runs: a send."""
        self.check()
        held = self._held
        if not held.let_go and self.left() < self._margin + seconds:
            try:
                kept = await self._reserve(held, self._margin + seconds)
            except AttemptStopped:
                raise
            except Exception as error:
                log.warning(
                    "job's lease could not be renewed for a send", exc_info=error, extra=log_fields(held.job)
                )
                held.stop(StopReason.EXPIRED)
                raise AttemptStopped(StopReason.EXPIRED) from error
            if not kept:
                held.stop(StopReason.LOST)
                raise AttemptStopped(StopReason.LOST)
            self.check()
        try:
            yield
        finally:
            held.needs_until = 0.0
