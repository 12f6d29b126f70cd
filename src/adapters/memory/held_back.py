"""A held-back job let go early, in memory."""

from __future__ import annotations

import copy
from dataclasses import replace

from adapters.memory.tables import MemoryTablesUser
from ports.held_back import HeldBackJobs
from ports.json import Payload


class MemoryHeldBackJobs(MemoryTablesUser, HeldBackJobs):
    async def release_held_back(self, job_id: int, payload: Payload, now: float) -> bool:
        job = self._tables.jobs.get(job_id)
        if job is None or job.token != 0 or job.claimed_by is not None:
            return False
        self._tables.jobs[job_id] = replace(job, payload=copy.deepcopy(payload), available_at=now)
        return True
