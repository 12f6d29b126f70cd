"""Virtual time for tests: sleeps wait until the test advances the clock."""

from __future__ import annotations

import asyncio
import heapq
import itertools

from ports.clock import Clock

SETTLE_ROUNDS = 100


async def settle(rounds: int = SETTLE_ROUNDS) -> None:
    """Let every ready coroutine run until the loop has nothing left to do right now.

    Zero-length yields only: no time passes, so this never stands in for waiting on an event.
    """
    for _ in range(rounds):
        await asyncio.sleep(0)


class VirtualClock(Clock):
    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def monotonic(self) -> float:
        """Virtual time never jumps back: the same reading as `now`."""
        return self._now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._now + seconds, next(self._order), future))
        await future

    @property
    def sleepers(self) -> int:
        """Sleeps still waiting (cancelled ones excluded)."""
        return sum(1 for _, _, f in self._sleepers if not f.done())

    async def advance(self, seconds: float) -> None:
        """Move time forward, waking each sleeper at its own deadline, in order."""
        target = self._now + seconds
        await settle()
        while self._sleepers and self._sleepers[0][0] <= target:
            deadline, _, future = heapq.heappop(self._sleepers)
            self._now = max(self._now, deadline)
            if not future.done():
                future.set_result(None)
                await settle()
        self._now = target
        await settle()

    def jump(self, seconds: float) -> None:
        """Time passes and nothing runs meanwhile (the process was paused: SIGSTOP, a VM
        frozen): every sleep due by then wakes at the next `advance`, all at once, in order."""
        self._now += seconds

    async def run_until(self, predicate: object, limit_seconds: float = 3600.0, step: float = 0.5) -> None:
        """Advance in steps until `predicate()` holds; fails the test if it never does."""
        assert callable(predicate)
        waited = 0.0
        while not predicate():
            if waited >= limit_seconds:
                raise AssertionError(f"condition not reached within {limit_seconds} virtual seconds")
            await self.advance(step)
            waited += step
