"""A wake-up broadcast: every coroutine waiting when it fires wakes, later ones wait for the next."""

from __future__ import annotations

import asyncio


class Signal:
    def __init__(self) -> None:
        self._event = asyncio.Event()

    def fire(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    def waiter(self) -> asyncio.Event:
        """Take it *before* looking for work, so a fire in between is not missed."""
        return self._event
