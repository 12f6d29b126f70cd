"""Jittered, capped waits between tries of something that keeps failing."""

from __future__ import annotations

from core.lifecycle.retry_policy import Random, RetryPolicy, backoff_delay


class Backoff:
    def __init__(self, policy: RetryPolicy, random: Random) -> None:
        self._policy = policy
        self._random = random
        self._failures = 0

    def next(self) -> float:
        self._failures += 1
        return backoff_delay(self._failures, self._policy, self._random)

    def reset(self) -> None:
        self._failures = 0
