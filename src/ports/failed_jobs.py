"""The operator's view of the queue: what waits, what failed, and putting failures back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ports.jobs import FailedJob, Job, QueueCounts


class FailedJobs(Protocol):
    async def counts(self) -> QueueCounts: ...

    async def list_jobs(self, limit: int = 100) -> list[Job]:
        """Queued and running rows, in id order."""
        ...

    async def list_failed(self, limit: int = 100) -> list[FailedJob]: ...

    async def retry_failed(self, failed_ids: Sequence[int] | None, now: float) -> list[int]:
        """Move failed rows back into the queue with attempts 0 (None = all); the new job ids."""
        ...

    async def purge_failed(self) -> int: ...
