"""The per-user link limits as a pure rule: given a user's counted links and the limits' windows
(links allowed per hour, per day), the limit that refuses one more link, and until when."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

HOUR = 3600.0
DAY = 86_400.0


@dataclass(frozen=True, slots=True)
class LimitReached:
    limit: int
    window_seconds: float
    wait_seconds: float
    """From now until one more link is allowed."""
    until: float
    """The moment one more link is allowed."""


def limit_reached(
    times: Sequence[float], now: float, windows: Sequence[tuple[int, float]]
) -> LimitReached | None:
    """The limit that refuses one more link at `now` (the one that frees last); None: allowed.
    `times`: the user's counted links, oldest first; `windows`: (links allowed, seconds)."""
    hits = []
    for limit, seconds in windows:
        recent = [t for t in times if t > now - seconds]
        if len(recent) >= limit:
            # Once the oldest link that keeps the count at the limit leaves the window.
            frees_at = recent[len(recent) - limit] + seconds
            hits.append(LimitReached(limit, seconds, frees_at - now, frees_at))
    return max(hits, key=lambda hit: hit.wait_seconds, default=None)
