"""Is this process receiving updates right now, and what must it be doing at all (its role: an
ingest runs no jobs, a worker receives no updates)? Told by the polling loop and the webhook
server as they start and stop; read by `/healthz` (health.py)."""

from __future__ import annotations

import asyncio

from core.update_freshness import UpdateFreshness


class Liveness:
    """What this process must be doing, and whether updates come in right now."""

    def __init__(self, freshness: UpdateFreshness | None = None) -> None:
        self.freshness = freshness
        self.receives_updates = True
        self.runs_jobs = True
        self._polling: asyncio.Future[None] | None = None
        self._webhook = False

    def expect(self, *, updates: bool, jobs: bool) -> None:
        self.receives_updates, self.runs_jobs = updates, jobs

    def polling(self, task: asyncio.Future[None]) -> None:
        self._polling = task
        if self.freshness is not None:
            self.freshness.started()

    def webhook(self, listening: bool) -> None:
        self._webhook = listening
        if listening and self.freshness is not None:
            self.freshness.started()

    def stopped(self) -> None:
        self._polling, self._webhook = None, False

    @property
    def receiving(self) -> bool:
        return self._webhook or (self._polling is not None and not self._polling.done())
