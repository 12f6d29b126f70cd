"""Is this process doing its work? What `/healthz` answers, and Docker's HEALTHCHECK reads.

Healthy means: updates come in (the polling loop runs, or the webhook server listens, and
Telegram answered within VIDRELAY_HEALTH_STALE_SECONDS: see core.update_freshness), every
worker task the engine should have is alive (one restarting after a crash gets a short grace),
each as far as this process's role asks for it (an ingest runs no jobs, a worker receives no
updates), the store takes writes, and no delivery waits for Telegram to answer again. A bot that
lost any of these looks fine from outside — the process is up, the port answers — while links
pile up unanswered: exactly what a health check is for.
"""

from __future__ import annotations

from typing import Protocol

from core.jobs.health import EngineHealth
from entrypoints.monitoring.liveness import Liveness


class Workers(Protocol):
    @property
    def live_workers(self) -> int: ...

    @property
    def worker_count(self) -> int:
        """How many worker tasks the engine should have while it runs."""
        ...

    def health(self) -> EngineHealth: ...

    async def stalled(self) -> str | None:
        """Why claimable work waits though a worker is free, or None (StoreError: ask the store)."""
        ...


class Waits(Protocol):
    def problem(self) -> str | None:
        """Why work waits on something outside (Telegram down), or None."""
        ...


def health_problem(liveness: Liveness, workers: Workers, waits: Waits | None = None) -> str | None:
    """Why this process is unhealthy, in a few words; None when it is healthy."""
    if liveness.receives_updates and not liveness.receiving:
        return "not receiving updates (polling or the webhook server is not running)"
    stale = liveness.freshness.problem() if liveness.freshness is not None else None
    if liveness.receives_updates and stale is not None:
        return stale
    if (problem := workers.health().problem(runs_jobs=liveness.runs_jobs)) is not None:
        return problem
    return waits.problem() if waits is not None and liveness.runs_jobs else None
