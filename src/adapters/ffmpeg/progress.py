"""ffmpeg's `-progress pipe:1` output: blocks of key=value lines, each closed by a `progress=` line.

The time written so far (`out_time_us`) against the probed duration gives the percent; a source
of unknown duration reports nothing rather than a made-up number.
"""

from __future__ import annotations

from collections.abc import Callable


class ProgressReader:
    """Feed it ffmpeg's stdout lines; it calls `on_percent` once per finished block."""

    def __init__(self, duration: float | None, on_percent: Callable[[float], None]) -> None:
        self._duration = duration if duration and duration > 0 else None
        self._on_percent = on_percent
        self._out_seconds: float | None = None

    def line(self, line: str) -> None:
        key, _, value = line.strip().partition("=")
        if key == "out_time_us":
            self._out_seconds = _seconds(value)
        elif key == "progress":
            if value == "end":
                self._on_percent(100.0)
            elif self._duration is not None and self._out_seconds is not None:
                self._on_percent(min(max(self._out_seconds / self._duration * 100, 0.0), 100.0))


def _seconds(micros: str) -> float | None:
    try:
        return int(micros) / 1_000_000
    except ValueError:
        return None  # "N/A" before the first frame
