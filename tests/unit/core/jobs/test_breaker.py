from __future__ import annotations

from core.jobs.breaker import BreakerPolicy, CircuitBreakers

POLICY = BreakerPolicy(threshold=3, window_seconds=60, cooldown_seconds=100)


def test_one_link_retrying_never_trips_its_site() -> None:
    breakers = CircuitBreakers(POLICY)
    assert all(breakers.record_failure("site", float(t), job_id=7) is None for t in range(10))
    assert breakers.paused_keys(10) == frozenset()


def test_several_links_failing_together_pause_the_site_until_the_cooldown() -> None:
    breakers = CircuitBreakers(POLICY)
    breakers.record_failure("site", 0, job_id=1)
    breakers.record_failure("site", 1, job_id=2)
    assert breakers.record_failure("site", 2, job_id=3) == 102
    assert breakers.paused_keys(50) == frozenset({"site"})
    assert breakers.paused_keys(102) == frozenset()


def test_failures_outside_the_window_are_forgotten() -> None:
    breakers = CircuitBreakers(POLICY)
    breakers.record_failure("site", 0, job_id=1)
    breakers.record_failure("site", 1, job_id=2)
    assert breakers.record_failure("site", 70, job_id=3) is None


def test_a_success_clears_the_count_and_close_all_reopens_everything() -> None:
    breakers = CircuitBreakers(POLICY)
    breakers.record_failure("a", 0, job_id=1)
    breakers.record_failure("a", 0, job_id=2)
    breakers.record_success("a")
    assert breakers.record_failure("a", 0, job_id=3) is None
    for job in (1, 2, 3):
        breakers.record_failure("b", 0, job_id=job)
    assert breakers.close_all() == ["b"]
    assert breakers.paused_keys(1) == frozenset()
