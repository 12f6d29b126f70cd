"""The operator's view of the queue: what waits, what failed, and putting failures back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ports.jobs import FailedJob, Job, QueueCounts, QueueStats


class QueueView(Protocol):
    async def counts(self) -> QueueCounts: ...

    async def stats(self, now: float) -> QueueStats:
        """Every row counted by job name and state as of `now` (see JobNameStats)."""
        ...

    async def ahead_of(self, job_id: int, now: float) -> int:
        """How many free rows due by `now` the claims take before this one (the fair order of
        ports.queue); 0 when it is held or gone. Only the rows before it are counted."""
        ...

    async def list_jobs(self, limit: int = 100) -> list[Job]:
        """Queued and running rows, in id order."""
        ...

    async def list_failed(self, limit: int = 100) -> list[FailedJob]: ...

    async def retry_failed(self, failed_ids: Sequence[int] | None, now: float) -> list[int]:
        """Move failed rows back into the queue with attempts 0 (None = all); the new job ids."""
        ...

    async def purge_failed(self, failed_before: float | None = None, name: str | None = None) -> int:
        """Delete failed rows (only those failed before `failed_before`, of job `name`, when
        given); how many went. Queued and running rows are never purged."""
        ...
