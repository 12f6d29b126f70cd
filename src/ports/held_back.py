"""A job enqueued for later, let go early by whoever enqueued it: the handler side's last word on
a job before any worker may run it.

On a store many processes share, the ingest enqueues a link's job held back for a few seconds,
posts the link's log message, and then writes the message's id into the job and makes it due
(`release_held_back`) — so the worker that claims it carries on in that message instead of
posting a second one. The contract (tests/contract/test_held_back.py): the write happens only
while no claim ever took the row (its fencing token is still 0); otherwise nothing changes.
"""

from __future__ import annotations

from typing import Protocol

from ports.json import Payload


class HeldBackJobs(Protocol):
    async def release_held_back(self, job_id: int, payload: Payload, now: float) -> bool:
        """Give the never-claimed job `payload` and make it due at `now`; False (nothing changed)
        when a claim took it first or it is gone."""
        ...
