"""How long a failed job waits before its next attempt: exponential, jittered, capped."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Random = Callable[[], float]
"""A uniform draw from [0, 1)."""


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
