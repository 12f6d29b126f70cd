"""The life of a job as a pure state machine: (state, event) → (state, effect).

    queued ──claim──▶ running ──succeed──────────────────────────────▶ done
      ▲    └─(attempts spent)─▶ dead  ├─fail (transient, attempts left)─▶ queued, later
      │                               ├─fail (permanent, or the last attempt)─▶ dead
      └────────release (shutdown)─────┘

The engine builds the state from the row it claimed, feeds in what happened, and applies the
effect through the store. Attempts are written ahead: the claim spends one before the work
starts, so a job that kills its process (no event ever arrives) still runs out of attempts, and
the next claim of a job whose attempts are spent buries it without running it. Which death
charges which job is the store's rule (ports.queue: a worker that dies with several jobs in
flight is charged for none). A periodic job is never dead-lettered: when it fails or is spent it
is simply done, and its next tick runs it afresh.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, replace

from ports.jobs import Job

Random = Callable[[], float]
"""A uniform draw from [0, 1)."""


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
    pass


@dataclass(frozen=True, slots=True)
class Rejected:
    """The claimed row cannot run at all (no job type has its name)."""

    reason: str


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
    """Stopped without failing (shutdown), or deferred by the job itself (its chat's turn comes
    later): the attempt is refunded."""

    available_at: float
    deferred: bool = False


Event = Claimed | Rejected | Succeeded | Failed | Released


# Effects ------------------------------------------------------------------------------------


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


def step(state: JobState, event: Event, policy: RetryPolicy, random: Random) -> tuple[JobState, Effect]:
    """Apply one event. Events that do not fit the phase change nothing (idempotent replays)."""
    match state.phase, event:
        case Phase.QUEUED, Claimed():
            return _claim(state)
        case Phase.QUEUED | Phase.RUNNING, Rejected(reason=reason):
            return replace(state, phase=Phase.DEAD, error=reason), DeadLetter(reason)
        case Phase.RUNNING, Succeeded():
            return replace(state, phase=Phase.DONE), Complete()
        case Phase.RUNNING, Failed():
            return _after_failure(state, event, policy, random)
        case Phase.RUNNING, Released(available_at=at):
            queued = replace(state, phase=Phase.QUEUED, attempts=state.attempts - 1, available_at=at)
            return queued, Release(at, deferred=event.deferred)
    return state, Nothing()


def _claim(state: JobState) -> tuple[JobState, Effect]:
    if is_exhausted(state.attempts, state.max_attempts):
        if state.periodic:
            return replace(state, phase=Phase.DONE), Complete()
        error = gave_up(state.max_attempts)
        return replace(state, phase=Phase.DEAD, error=error), DeadLetter(error)
    return replace(state, phase=Phase.RUNNING, attempts=state.attempts + 1), Run()


def _after_failure(
    state: JobState, event: Failed, policy: RetryPolicy, random: Random
) -> tuple[JobState, Effect]:
    if state.periodic:
        return replace(state, phase=Phase.DONE, error=event.error), Complete()
    decision = decide_after_failure(state.attempts, state.max_attempts, event, policy, random)
    if isinstance(decision, DeadLetter):
        return replace(state, phase=Phase.DEAD, error=event.error), decision
    retrying = replace(state, phase=Phase.QUEUED, available_at=decision.available_at, error=event.error)
    return retrying, decision


def decide_after_failure(
    attempts: int, max_attempts: int, failure: Failed, policy: RetryPolicy, random: Random
) -> ScheduleRetry | DeadLetter:
    if failure.permanent or is_exhausted(attempts, max_attempts):
        return DeadLetter(failure.error)
    at = max(failure.now + backoff_delay(attempts, policy, random), failure.not_before)
    return ScheduleRetry(at, failure.error)


def is_exhausted(attempts: int, max_attempts: int) -> bool:
    return attempts >= max_attempts


def gave_up(max_attempts: int) -> str:
    return f"gave up after {max_attempts} attempts: the process died while running it"
