from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from core.lifecycle.effects import Complete, DeadLetter, Release, Run, ScheduleRetry
from core.lifecycle.events import Claimed, Event, Failed, Rejected, Released, Succeeded
from core.lifecycle.retry_policy import RetryPolicy, backoff_delay
from core.lifecycle.state import JobState, Phase
from core.lifecycle.step import step
from ports.jobs import Job

POLICY = RetryPolicy(base_seconds=1.0, cap_seconds=300.0, jitter=0.25)


def middle() -> float:
    return 0.5


def queued(attempts: int = 0, max_attempts: int = 3) -> JobState:
    return JobState(Phase.QUEUED, attempts, max_attempts)


def test_a_claim_spends_an_attempt_before_the_work() -> None:
    state, effect = step(queued(), Claimed(), POLICY, middle)
    assert (state.phase, state.attempts, effect) == (Phase.RUNNING, 1, Run())


def test_success_completes() -> None:
    state, effect = step(JobState(Phase.RUNNING, 1, 3), Succeeded(), POLICY, middle)
    assert (state.phase, effect) == (Phase.DONE, Complete())


def test_a_transient_failure_with_attempts_left_is_scheduled_with_backoff() -> None:
    state, effect = step(JobState(Phase.RUNNING, 2, 3), Failed("503", False, now=100), POLICY, middle)
    assert (state.phase, state.available_at, state.attempts) == (Phase.QUEUED, 102.0, 2)
    assert effect == ScheduleRetry(102.0, "503")


def test_a_permanent_failure_dies_at_once() -> None:
    state, effect = step(JobState(Phase.RUNNING, 1, 3), Failed("unsupported", True, now=0), POLICY, middle)
    assert (state.phase, effect) == (Phase.DEAD, DeadLetter("unsupported"))


def test_the_last_attempt_failing_dies() -> None:
    state, effect = step(JobState(Phase.RUNNING, 3, 3), Failed("503", False, now=0), POLICY, middle)
    assert (state.phase, effect) == (Phase.DEAD, DeadLetter("503"))


def test_retry_after_is_a_floor_for_the_retry_time() -> None:
    event = Failed("flood", False, now=10, not_before=40)
    _, effect = step(JobState(Phase.RUNNING, 1, 3), event, POLICY, middle)
    assert effect == ScheduleRetry(40, "flood")


def test_a_release_refunds_the_attempt() -> None:
    state, effect = step(JobState(Phase.RUNNING, 2, 3), Released(available_at=5), POLICY, middle)
    assert (state.phase, state.attempts, effect) == (Phase.QUEUED, 1, Release(5))


def test_the_state_before_a_claim_is_the_row_with_the_claims_attempt_given_back() -> None:
    row = Job(1, "download_video", {}, attempts=2, max_attempts=3, available_at=5, created_at=0)
    state = JobState.before_claim(row)
    assert (state.phase, state.attempts, state.max_attempts) == (Phase.QUEUED, 1, 3)
    assert step(state, Claimed(), POLICY, middle) == (JobState(Phase.RUNNING, 2, 3, 5), Run())


def test_a_claim_of_a_job_whose_attempts_were_spent_by_dying_processes_buries_it() -> None:
    state, effect = step(queued(3, 3), Claimed(), POLICY, middle)
    assert state.phase is Phase.DEAD
    assert effect == DeadLetter("gave up after 3 attempts: the process died while running it")


def test_a_periodic_job_is_never_dead_lettered_it_is_done_and_ticks_again() -> None:
    spent = JobState(Phase.QUEUED, 1, 1, periodic=True)
    assert step(spent, Claimed(), POLICY, middle)[1] == Complete()
    running = JobState(Phase.RUNNING, 1, 1, periodic=True)
    assert step(running, Failed("index down", True, now=0), POLICY, middle)[1] == Complete()


def test_a_row_no_handler_knows_is_dead_lettered_with_the_reason() -> None:
    state, effect = step(queued(), Rejected("unknown job name 'x'"), POLICY, middle)
    assert (state.phase, effect) == (Phase.DEAD, DeadLetter("unknown job name 'x'"))


def test_finished_jobs_ignore_further_events() -> None:
    for final in (JobState(Phase.DONE, 1, 3), JobState(Phase.DEAD, 1, 3)):
        for event in (Claimed(), Failed("x", False, 0), Released(0), Succeeded(), Rejected("x")):
            assert step(final, event, POLICY, middle)[0] is final


@given(
    attempt=st.integers(min_value=1, max_value=200),
    base=st.floats(min_value=0.01, max_value=60),
    cap=st.floats(min_value=0.5, max_value=3600),
    draw=st.floats(min_value=0.0, max_value=0.999999),
)
def test_backoff_stays_within_its_jitter_bounds_and_cap(
    attempt: int, base: float, cap: float, draw: float
) -> None:
    policy = RetryPolicy(base_seconds=base, cap_seconds=cap, jitter=0.25)
    nominal = min(base * 2.0 ** min(attempt - 1, 62), cap)
    delay = backoff_delay(attempt, policy, lambda: draw)
    assert delay <= cap
    assert nominal * 0.75 - 1e-9 <= delay <= nominal * 1.25 + 1e-9


def test_backoff_doubles_per_attempt() -> None:
    delays = [backoff_delay(n, POLICY, middle) for n in (1, 2, 3, 4)]
    assert delays == [1.0, 2.0, 4.0, 8.0]


events = st.one_of(
    st.builds(Claimed),
    st.builds(Succeeded),
    st.builds(Failed, error=st.text(max_size=5), permanent=st.booleans(), now=st.floats(0, 1e6)),
    st.builds(Released, available_at=st.floats(0, 1e6)),
    st.builds(Rejected, reason=st.text(max_size=5)),
)


@given(
    max_attempts=st.lists(st.integers(min_value=1, max_value=5), min_size=1, max_size=4),
    script=st.lists(st.tuples(st.integers(min_value=0, max_value=3), events), max_size=80),
    draw=st.floats(min_value=0, max_value=0.999),
)
def test_no_event_sequence_loses_a_job(
    max_attempts: list[int], script: list[tuple[int, Event]], draw: float
) -> None:
    """Whatever happens, after a reboot every job is exactly one of done, dead or queued."""
    jobs = [queued(0, m) for m in max_attempts]
    for index, event in script:
        n = index % len(jobs)
        before = jobs[n]
        jobs[n], effect = step(before, event, POLICY, lambda: draw)
        if before.phase is Phase.RUNNING:
            assert jobs[n].attempts <= jobs[n].max_attempts
        if before.phase.final:
            assert jobs[n] == before
        if isinstance(effect, Run):
            assert jobs[n].attempts <= jobs[n].max_attempts
    rebooted = [_reboot(job) for job in jobs]
    for job in rebooted:
        assert [job.phase is p for p in (Phase.DONE, Phase.DEAD, Phase.QUEUED)].count(True) == 1


def _reboot(job: JobState) -> JobState:
    """A crash and a boot: a running job's row comes back queued with its attempt spent (the
    store's rule for a job that died alone: the harshest case)."""
    return JobState(Phase.QUEUED, job.attempts, job.max_attempts) if job.phase is Phase.RUNNING else job
