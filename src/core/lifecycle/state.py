"""What the state machine knows of a job: its phase and its attempts."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ports.jobs import Job


class Phase(enum.Enum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    DEAD = "dead"

    @property
    def final(self) -> bool:
        return self in (Phase.DONE, Phase.DEAD)


@dataclass(frozen=True, slots=True)
class JobState:
    phase: Phase
    attempts: int
    max_attempts: int
    available_at: float = 0.0
    error: str | None = None
    periodic: bool = False

    @classmethod
    def before_claim(cls, job: Job, *, periodic: bool = False) -> JobState:
        """The row as it was before the claim that handed it out (which spent one attempt)."""
        return cls(
            Phase.QUEUED, max(job.attempts - 1, 0), job.max_attempts, job.available_at, periodic=periodic
        )
