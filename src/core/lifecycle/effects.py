"""What the engine must do through the store after an event: the outputs of the state machine."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Run:
    pass


@dataclass(frozen=True, slots=True)
class Complete:
    pass


@dataclass(frozen=True, slots=True)
class ScheduleRetry:
    available_at: float
    error: str


@dataclass(frozen=True, slots=True)
class Release:
    available_at: float
    deferred: bool = False
    """Asked for by the job (`core.jobs.registry.Deferred`), not a shutdown's."""


@dataclass(frozen=True, slots=True)
class DeadLetter:
    error: str


@dataclass(frozen=True, slots=True)
class Nothing:
    pass


Effect = Run | Complete | ScheduleRetry | Release | DeadLetter | Nothing
