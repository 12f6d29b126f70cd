"""Time as a port: nothing in the core reads a clock or sleeps on its own."""

from __future__ import annotations

from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch (wall time, comparable across processes)."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never jumps (a wall clock set back or forward does not move
        it), comparable only within this process: for how long something has lasted, and what
        the sleeps of this clock measure."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Return after `seconds` of this clock's time; cancellable like asyncio.sleep."""
        ...
