"""A pacing policy that never waits: for tests about what is sent, not how fast (the flood
limits have tests of their own, tests/integration/test_telegram_flood.py)."""

from __future__ import annotations

from adapters.telegram.pacing import PacingPolicy

_NEVER = 10**6

UNPACED = PacingPolicy(
    private_per_second=_NEVER,
    private_burst=_NEVER,
    group_per_second=_NEVER,
    group_burst=_NEVER,
    group_per_window=_NEVER,
    overall_per_second=_NEVER,
    overall_burst=_NEVER,
)
