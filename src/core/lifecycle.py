"""The life of a job as a pure state machine: (state, event) → (state, effect).

    queued ──claim──▶ running ──succeed──▶ done
      ▲                 │ ├──fail (transient, attempts left)──▶ retry_scheduled ──due──▶ queued
      │                 │ ├──fail (permanent or exhausted)────▶ dead
      └──abort/pause────┘ └──process died (lease lost)────────▶ queued (attempt spent)

Attempts are written ahead: the claim spends one before the work starts, so a job that kills
its process (no error handler ever runs) still runs out of attempts. A queued job whose
attempts are already spent is given up at the next look (boot), never claimed again.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, replace

Random = Callable[[], float]
"""A uniform draw from [0, 1)."""


class Phase(enum.Enum):
    QUEUED = "queued"
    RUNNING = "running"
    RETRY_SCHEDULED = "retry_scheduled"
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


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    base_seconds: float = 1.0
    cap_seconds: float = 300.0
    jitter: float = 0.25
    """The delay is drawn uniformly from nominal·(1 ± jitter), then capped."""


def backoff_delay(attempt: int, policy: RetryPolicy, random: Random) -> float:
    """Delay before the retry that follows failed attempt number `attempt` (1-based)."""
    exponent = min(max(attempt, 1) - 1, 62)
    nominal = min(policy.base_seconds * 2.0**exponent, policy.cap_seconds)
    spread = 1.0 + policy.jitter * (2.0 * random() - 1.0)
    return min(nominal * spread, policy.cap_seconds)


# Events -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Claimed:
    now: float


@dataclass(frozen=True, slots=True)
class Succeeded:
    pass


@dataclass(frozen=True, slots=True)
class Failed:
    error: str
    permanent: bool
    now: float
    not_before: float = 0.0
    """A floor for the retry time (Telegram's retry_after)."""


@dataclass(frozen=True, slots=True)
class Released:
    """Stopped without failing (shutdown, a paused site): the attempt is refunded."""

    available_at: float


@dataclass(frozen=True, slots=True)
class LeaseLost:
    """The process running the job died; its attempt stays spent."""


@dataclass(frozen=True, slots=True)
class Due:
    now: float


Event = Claimed | Succeeded | Failed | Released | LeaseLost | Due


# Effects ------------------------------------------------------------------------------------


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


@dataclass(frozen=True, slots=True)
class DeadLetter:
    error: str


@dataclass(frozen=True, slots=True)
class Run:
    pass


@dataclass(frozen=True, slots=True)
class Nothing:
    pass


Effect = Complete | ScheduleRetry | Release | DeadLetter | Run | Nothing


def step(state: JobState, event: Event, policy: RetryPolicy, random: Random) -> tuple[JobState, Effect]:
    """Apply one event. Events that do not fit the phase change nothing (idempotent replays)."""
    match state.phase, event:
        case Phase.QUEUED, Claimed():
            return _claim(state)
        case Phase.RETRY_SCHEDULED, Due(now=now) if now >= state.available_at:
            return replace(state, phase=Phase.QUEUED), Nothing()
        case Phase.RUNNING, Succeeded():
            return replace(state, phase=Phase.DONE), Complete()
        case Phase.RUNNING, Failed():
            return _after_failure(state, event, policy, random)
        case Phase.RUNNING, Released(available_at=at):
            return replace(state, phase=Phase.QUEUED, attempts=state.attempts - 1, available_at=at), Release(
                at
            )
        case Phase.RUNNING, LeaseLost():
            return replace(state, phase=Phase.QUEUED), Nothing()
    return state, Nothing()


def _claim(state: JobState) -> tuple[JobState, Effect]:
    if is_exhausted(state.attempts, state.max_attempts):
        error = state.error or "gave up: attempts exhausted"
        return replace(state, phase=Phase.DEAD, error=error), DeadLetter(error)
    return replace(state, phase=Phase.RUNNING, attempts=state.attempts + 1), Run()


def _after_failure(
    state: JobState, event: Failed, policy: RetryPolicy, random: Random
) -> tuple[JobState, Effect]:
    decision = decide_after_failure(state.attempts, state.max_attempts, event, policy, random)
    if isinstance(decision, DeadLetter):
        return replace(state, phase=Phase.DEAD, error=event.error), decision
    return (
        replace(state, phase=Phase.RETRY_SCHEDULED, available_at=decision.available_at, error=event.error),
        decision,
    )


def decide_after_failure(
    attempts: int, max_attempts: int, failure: Failed, policy: RetryPolicy, random: Random
) -> ScheduleRetry | DeadLetter:
    if failure.permanent or is_exhausted(attempts, max_attempts):
        return DeadLetter(failure.error)
    at = max(failure.now + backoff_delay(attempts, policy, random), failure.not_before)
    return ScheduleRetry(at, failure.error)


def is_exhausted(attempts: int, max_attempts: int) -> bool:
    return attempts >= max_attempts
