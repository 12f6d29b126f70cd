"""Per-key circuit breaker: a burst of transient failures for one site pauses that site.

Paused jobs are not failed: they wait in the queue until the cooldown ends or an event (a
yt-dlp update) closes the breaker. Times are passed in; the breaker never reads a clock.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class BreakerPolicy:
    threshold: int = 5
    window_seconds: float = 60.0
    cooldown_seconds: float = 120.0


@dataclass
class CircuitBreakers:
    policy: BreakerPolicy = field(default_factory=BreakerPolicy)
    _failures: dict[str, deque[tuple[float, int]]] = field(default_factory=dict)
    _open_until: dict[str, float] = field(default_factory=dict)

    def record_failure(self, key: str, now: float, job_id: int = 0) -> float | None:
        """Count a transient failure; the reopening time when this one trips the breaker.

        The threshold counts distinct jobs: one link retrying is that link's problem, several
        links failing together is the site's.
        """
        if not key or key in self._open_until:
            return None
        recent = self._failures.setdefault(key, deque())
        recent.append((now, job_id))
        while recent and recent[0][0] <= now - self.policy.window_seconds:
            recent.popleft()
        if len({job for _, job in recent}) < self.policy.threshold:
            return None
        self._failures.pop(key, None)
        self._open_until[key] = now + self.policy.cooldown_seconds
        return self._open_until[key]

    def record_success(self, key: str) -> None:
        self._failures.pop(key, None)

    def paused_keys(self, now: float) -> frozenset[str]:
        for key in [k for k, until in self._open_until.items() if until <= now]:
            del self._open_until[key]
        return frozenset(self._open_until)

    def next_reopening(self) -> float | None:
        return min(self._open_until.values(), default=None)

    def close_all(self) -> list[str]:
        closed = list(self._open_until)
        self._open_until.clear()
        self._failures.clear()
        return closed


class ReopenSites:
    """Every breaker closed at once (a new yt-dlp may have fixed what broke the sites), and the
    workers woken when one was open: its paused jobs are claimable now."""

    def __init__(self, breakers: CircuitBreakers, wake: Callable[[], None]) -> None:
        self._breakers = breakers
        self._wake = wake

    def __call__(self) -> None:
        if self._breakers.close_all():
            self._wake()
