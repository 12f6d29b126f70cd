"""One signal for every change to the fake's state, for the waits of tests and long polls."""

from __future__ import annotations

import asyncio
import contextlib


class Changes:
    """A waiter takes `upcoming()` before it checks its condition, then waits on it: a change that
    lands between the check and the wait still wakes it."""

    def __init__(self) -> None:
        self._upcoming = asyncio.Event()

    def upcoming(self) -> asyncio.Event:
        return self._upcoming

    def notify(self) -> None:
        self._upcoming.set()
        self._upcoming = asyncio.Event()

    @staticmethod
    async def wait(change: asyncio.Event, timeout: float) -> None:
        """Until that change happens or `timeout` seconds pass, whichever is first."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(change.wait(), timeout)
