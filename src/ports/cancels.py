"""Users cancelling their own work: a queued row goes at once, a running one is asked to stop.

A free row is deleted by `cancel_job` itself (nobody runs it, nobody will). A held row cannot be
deleted under its holder: `cancel_job` marks it, and the holder's heartbeat reads the mark
(`cancel_asked`) and stops the attempt, then settles the row like a completion (fenced). A store
that many processes share announces every mark to them at once (`ports.notices.WorkNotices.
on_cancel`), so the holder hears it within moments instead of at its next heartbeat. A mark
goes with its row; a row taken back from a dead holder keeps it, so its next holder stops too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ports.jobs import Job, Lease


@dataclass(frozen=True, slots=True)
class Cancelled:
    job: Job
    """The row as it was when the cancel reached it."""
    running: bool
    """True: a worker holds it and was asked to stop; False: it was queued and is gone."""


class JobCancels(Protocol):
    async def jobs_of(self, requester: int) -> list[Job]:
        """The queued and running rows of this requester (ports.queue's fair order), by id."""
        ...

    async def cancel_job(self, job_id: int) -> Cancelled | None:
        """Delete the row if it is free, else mark it for its holder; None when it is gone."""
        ...

    async def cancel_asked(self, leases: Sequence[Lease]) -> list[Lease]:
        """Of these leases, the ones still held whose row was marked by `cancel_job`."""
        ...
