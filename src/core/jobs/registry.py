"""Named jobs: every job type has a verb name and is registered once.

A duplicate name fails at start (two jobs sharing a name would dedupe against each other and
die under one indistinguishable log line); the exact list is asserted by a test.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from returns.result import Result

from core.jobs.submitter import JobSubmitter
from ports.jobs import Job
from ports.json import Payload


@dataclass(frozen=True, slots=True)
class JobFailure:
    reason: str
    """Short and user-facing (the 💥 line)."""
    permanent: bool = False
    retry_after: float | None = None
    """Do not retry sooner than this many seconds (Telegram's flood control)."""
    detail: str | None = None
    """For the dead-letter row: a traceback, a stderr tail."""
    code: str = ""
    """What kind of failure, for the hooks (e.g. "not_a_video" stays silent in groups)."""


INTERNAL = "internal"
"""The code of a failure that is a bug of ours, not the job's: an operator should look."""


@dataclass(frozen=True, slots=True)
class Deferred:
    """Not done, and not failed either: run the job again at `until`, its attempt refunded.

    For a wait that is nobody's fault and must not hold a worker (a chat that Telegram's flood
    limits close for the next 40 s): the row waits in the queue, the worker takes other jobs.
    """

    until: float


JobOutcome = Result[Deferred | None, JobFailure]


class JobContext:
    """What a running attempt may see and do besides its own dependencies."""

    def __init__(self, job: Job, save: Callable[[Payload], Awaitable[None]], jobs: JobSubmitter) -> None:
        self.job = job
        self.payload: Payload = dict(job.payload)
        self.jobs = jobs
        """Where the attempt enqueues other jobs (a multi-video post's children)."""
        self._save = save

    @property
    def attempt(self) -> int:
        return self.job.attempts

    @property
    def max_attempts(self) -> int:
        return self.job.max_attempts

    @property
    def is_last_attempt(self) -> bool:
        return self.job.attempts >= self.job.max_attempts

    async def save(self) -> None:
        """Persist `payload` so later attempts (and later boots) see it."""
        await self._save(self.payload)


@dataclass(frozen=True, slots=True)
class DeadJob:
    job: Job
    reason: str
    failure: JobFailure | None = None
    """None when the job never got to fail: the process died, or its name is unknown."""


@dataclass(frozen=True, slots=True)
class RetryNotice:
    context: JobContext
    failure: JobFailure
    next_attempt: int


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
