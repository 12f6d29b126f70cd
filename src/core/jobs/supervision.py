"""Background loops that do not die: a loop that still raises is logged and started again.

Each loop contains its own store and handler errors; this is the net under that net (a bug in
the engine's own code). The live count is what /healthz reports.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from core.jobs.backoff import Backoff
from ports.clock import Clock

log = logging.getLogger("vidrelay.engine")
Body = Callable[[], Awaitable[None]]


class Supervisor:
    def __init__(self, *, clock: Clock, wanted_workers: int, new_backoff: Callable[[], Backoff]) -> None:
        self._clock = clock
        self._wanted = wanted_workers
        self._new_backoff = new_backoff
        self._live_workers = 0
        self._short_since: float | None = None

    def keep_running(self, name: str, body: Body, *, worker: bool = False) -> asyncio.Task[None]:
        if worker:
            self._count(+1)
        return asyncio.create_task(self._keep(name, body, worker), name=name)

    @property
    def live_workers(self) -> int:
        return self._live_workers

    def short_for(self, now: float) -> float:
        return 0.0 if self._short_since is None else now - self._short_since

    async def _keep(self, name: str, body: Body, worker: bool) -> None:
        backoff, alive = self._new_backoff(), worker
        try:
            while True:
                try:
                    await body()
                except Exception:
                    log.exception("%s died: restarting it", name)
                else:
                    return  # a loop ends on its own only when the engine stops
                if alive:
                    self._count(-1)
                    alive = False
                await self._clock.sleep(backoff.next())
                if worker:
                    self._count(+1)
                    alive = True
        finally:
            if alive:
                self._count(-1)

    def _count(self, change: int) -> None:
        self._live_workers += change
        short = self._live_workers < self._wanted
        if short and self._short_since is None:
            self._short_since = self._clock.now()
        elif not short:
            self._short_since = None
