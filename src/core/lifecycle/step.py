"""The transition: (state, event) → (state, effect); the diagram is in the package docstring."""

from __future__ import annotations

from dataclasses import replace

from core.lifecycle.effects import Complete, DeadLetter, Effect, Nothing, Release, Run, ScheduleRetry
from core.lifecycle.events import Claimed, Event, Failed, Rejected, Released, Succeeded
from core.lifecycle.retry_policy import Random, RetryPolicy, backoff_delay
from core.lifecycle.state import JobState, Phase
from core.texts import reasons


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
    return reasons.gave_up(max_attempts)
