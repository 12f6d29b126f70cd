"""What a job type's hooks hear: a retry (`RetryNotice`), a death (`DeadJob`) and a cancel by its
user (`CancelledJob`); the registry names the hooks, the settler and the attempt call them."""

from __future__ import annotations

from dataclasses import dataclass

from core.jobs.context import JobContext
from core.jobs.outcome import JobFailure
from ports.jobs import Job


@dataclass(frozen=True, slots=True)
class DeadJob:
    job: Job
    reason: str
    failure: JobFailure | None = None
    """None when the job never got to fail: the process died, or its name is unknown."""


@dataclass(frozen=True, slots=True)
class CancelledJob:
    """A job its user cancelled while it ran: `job.payload` is what the attempt had learned."""

    job: Job


@dataclass(frozen=True, slots=True)
class RetryNotice:
    context: JobContext
    failure: JobFailure
    next_attempt: int
