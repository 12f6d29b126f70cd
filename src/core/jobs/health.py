"""What /healthz asks of the engine: are the workers there, does the store take writes
(store_health.py keeps the second)."""

from __future__ import annotations

from dataclasses import dataclass


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
