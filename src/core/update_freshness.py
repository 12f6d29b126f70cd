"""Are updates still coming in from the chat service? The part of `/healthz` a process that
looks fine from outside gets wrong: its polling loop runs, while every getUpdates fails (Telegram
unreachable, or a webhook set elsewhere answering 409 Conflict).

Fresh while updates were received (a getUpdates answered, even with none; a webhook request
taken) within the last `stale_seconds`; a long poll is kept shorter than that by its caller, so
that a quiet bot stays fresh. Stale says for how long, and the last failure's words.
"""

from __future__ import annotations

from ports.clock import Clock
from ports.telemetry import UpdateEvents


class UpdateFreshness(UpdateEvents):
    def __init__(self, clock: Clock, *, stale_seconds: float) -> None:
        self._clock = clock
        self.stale_seconds = stale_seconds
        self._received_at: float | None = None
        self._last_failure: str | None = None

    def started(self) -> None:
        """Receiving begins: the first answer gets a full window."""
        self._received_at, self._last_failure = self._clock.now(), None

    def updates_received(self) -> None:
        self._received_at, self._last_failure = self._clock.now(), None

    def updates_failed(self, reason: str) -> None:
        self._last_failure = " ".join(reason.split())

    def problem(self) -> str | None:
        if self._received_at is None:
            return None
        quiet = self._clock.now() - self._received_at
        if quiet <= self.stale_seconds:
            return None
        why = f": {self._last_failure}" if self._last_failure else ""
        return (
            f"no updates from Telegram for {quiet:.0f}s"
            f" (VIDRELAY_HEALTH_STALE_SECONDS={self.stale_seconds:g}){why}"
        )
