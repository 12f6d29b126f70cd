"""The real clock."""

from __future__ import annotations

import asyncio
import time

from ports.clock import Clock


class SystemClock(Clock):
    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(seconds, 0.0))
