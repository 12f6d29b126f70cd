"""What /healthz asks of the engine: are the workers there, does the store take writes."""

from __future__ import annotations

from dataclasses import dataclass


class StoreHealth:
    """The outcome of the latest write anybody tried (a claim, a heartbeat, an enqueue).

    The heartbeat writes every few seconds even when idle, so a store that refuses writes is
    noticed without waiting for a user's link to fail.
    """

    def __init__(self) -> None:
        self.refusing_since: float | None = None

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
    """How long fewer than `wanted_workers` have been alive (0 when all are)."""
    store_refuses_writes: bool
    grace_seconds: float

    @property
    def ok(self) -> bool:
        workers_ok = self.live_workers >= self.wanted_workers or self.short_for_seconds <= self.grace_seconds
        return workers_ok and not self.store_refuses_writes

    def describe(self) -> str:
        problems = []
        if self.store_refuses_writes:
            problems.append("the store refuses writes")
        if self.live_workers < self.wanted_workers:
            missing = self.wanted_workers - self.live_workers
            problems.append(f"{missing} worker(s) missing for {self.short_for_seconds:.0f}s")
        state = "ok" if self.ok else "unhealthy"
        detail = f": {'; '.join(problems)}" if problems else ""
        return f"{state}{detail}\nworkers {self.live_workers}/{self.wanted_workers}\n"
