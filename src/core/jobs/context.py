"""What a job's handler is given: the running attempt (`JobContext`); what its hooks hear is in
hooks.py."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from core.jobs.fence import Fence
from core.jobs.in_flight import HeldJob
from core.jobs.submitter import JobSubmitter
from ports.jobs import Job
from ports.json import Payload


class JobContext:
    """What a running attempt may see and do besides its own dependencies."""

    def __init__(
        self,
        job: Job,
        save: Callable[[Payload], Awaitable[None]],
        jobs: JobSubmitter,
        fence: Fence | None = None,
    ) -> None:
        self.job = job
        self.payload: Payload = dict(job.payload)
        self.jobs = jobs
        """Where the attempt enqueues other jobs (a multi-video post's children)."""
        self.fence = fence or Fence.always(HeldJob(job))
        """What every Telegram call made for this attempt asks first (core.jobs.fence)."""
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
