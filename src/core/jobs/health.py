"""What /healthz asks of the engine: are the workers there, does the store take writes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from ports.clock import Clock
from ports.errors import StoreDamaged

T = TypeVar("T")


class StoreHealth:
    """The outcome of the latest write anybody tried (a claim, a heartbeat, an enqueue).

    The heartbeat writes every few seconds even when idle, so a store that refuses writes is
    noticed without waiting for a user's link to fail. A store whose data is damaged
    (StoreDamaged) is told to `on_damaged`, once: nothing of the engine should try it again.
    """

    def __init__(self, clock: Clock, on_damaged: Callable[[StoreDamaged], None] = lambda _: None) -> None:
        self._clock = clock
        self._on_damaged = on_damaged
        self.refusing_since: float | None = None

    async def write(self, write: Awaitable[T]) -> T:
        """`write`'s answer, its outcome noted (/healthz reports a store that refuses writes);
        the store's error is raised on for the caller to handle."""
        try:
            answer = await write
        except Exception as error:
            self.refused(self._clock.now())
            if isinstance(error, StoreDamaged):
                self._on_damaged(error)
            raise
        self.wrote()
        return answer

    def wrote(self) -> None:
        self.refusing_since = None

    def refused(self, now: float) -> None:
        if self.refusing_since is None:
            self.refusing_since = now

    @property
    def refusing_writes(self) -> bool:
        return self.refusing_since is not None


@dataclass(frozen=True, slots=True)
class EngineHealth:
    live_workers: int
    wanted_workers: int
    short_for_seconds: float
    """How long fewer than `wanted_workers` have been alive (0 when all are; infinite while the
    engine is not running, so a stopped or not yet started engine gets no grace)."""
    store_refuses_writes: bool
    grace_seconds: float

    @property
    def workers_ok(self) -> bool:
        # A worker that died is restarted after a backoff: only a gap that lasts is unhealthy.
        return self.live_workers >= self.wanted_workers or self.short_for_seconds <= self.grace_seconds

    def problem(self, *, runs_jobs: bool) -> str | None:
        """Why the engine is unhealthy, in a few words; None when it is healthy. `runs_jobs`:
        this process's role runs jobs (an ingest only enqueues, so only its writes count)."""
        if self.store_refuses_writes:
            return "the store refuses writes"
        if runs_jobs and not self.workers_ok:
            return f"{self.live_workers} of {self.wanted_workers} workers alive"
        return None
