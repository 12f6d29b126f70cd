"""Named jobs: every job type has a verb name and is registered once.

A duplicate name fails at start (two jobs sharing a name would dedupe against each other and
die under one indistinguishable log line); the exact list is asserted by a test.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from core.jobs.context import JobContext
from core.jobs.hooks import CancelledJob, DeadJob, RetryNotice
from core.jobs.outcome import JobOutcome


@dataclass(frozen=True, slots=True)
class JobType:
    name: str
    run: Callable[[JobContext], Awaitable[JobOutcome]]
    timeout_seconds: float = 900.0
    max_attempts: int | None = None
    """None: the deployment's VIDRELAY_MAX_ATTEMPTS."""
    interval_seconds: float | None = None
    """Periodic: enqueued at boot and then every interval, never stacked."""
    on_retry: Callable[[RetryNotice], Awaitable[None]] | None = None
    on_dead: Callable[[DeadJob], Awaitable[None]] | None = None
    on_cancel: Callable[[CancelledJob], Awaitable[None]] | None = None
    """Its user cancelled it while it ran: say so (the row goes after this, like a completion)."""


class DuplicateJobName(ValueError):
    pass


class JobRegistry:
    def __init__(self, job_types: Iterable[JobType] = ()) -> None:
        self._types: dict[str, JobType] = {}
        for job_type in job_types:
            self.register(job_type)

    def register(self, job_type: JobType) -> None:
        if job_type.name in self._types:
            raise DuplicateJobName(f"two job types are registered as {job_type.name!r}")
        self._types[job_type.name] = job_type

    def get(self, name: str) -> JobType | None:
        return self._types.get(name)

    def names(self) -> list[str]:
        return list(self._types)

    def all(self) -> list[JobType]:
        return list(self._types.values())

    def periodic(self) -> list[JobType]:
        return [t for t in self._types.values() if t.interval_seconds]
