"""Single flight: concurrent callers for one key share one task.

Each caller may bring a listener that hears the task while that caller waits (a chat's progress
bar). A caller that is cancelled stops waiting; the task is cancelled only when no caller is left.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Generic, TypeVar

log = logging.getLogger("vidrelay.single_flight")

T = TypeVar("T")
L = TypeVar("L")


class Listeners(Generic[L]):
    """Whoever waits for a flight right now."""

    def __init__(self) -> None:
        self._members: list[L] = []

    def tell(self, message: Callable[[L], None]) -> None:
        for member in list(self._members):
            try:
                message(member)
            except Exception:
                # A listener's bug (a closed chat's progress bar) must not fail the shared task.
                log.exception("single flight: a listener failed")

    def add(self, member: L) -> None:
        self._members.append(member)

    def remove(self, member: L) -> None:
        self._members.remove(member)


@dataclass(eq=False)
class _Flight(Generic[T, L]):
    task: asyncio.Task[T] | None = None
    waiters: int = 0
    listeners: Listeners[L] = field(default_factory=Listeners)


class SingleFlight(Generic[T, L]):
    def __init__(self, label: str) -> None:
        self._label = label
        self._flights: dict[str, _Flight[T, L]] = {}

    async def join(
        self,
        key: str,
        start: Callable[[Listeners[L]], Coroutine[Any, Any, T]],
        listener: L | None = None,
    ) -> T:
        """The result of the task for `key`, started as `start(listeners)` when none is running."""
        flight = self._flights.get(key)
        if flight is None:
            flight = _Flight()
            flight.task = asyncio.create_task(start(flight.listeners), name=f"{self._label}:{key[:60]}")
            self._flights[key] = flight
            flight.task.add_done_callback(partial(self._landed, key, flight))
        return await self._wait_for(key, flight, listener)

    def _landed(self, key: str, flight: _Flight[T, L], _: object) -> None:
        if self._flights.get(key) is flight:
            del self._flights[key]

    async def _wait_for(self, key: str, flight: _Flight[T, L], listener: L | None) -> T:
        task = flight.task
        assert task is not None
        flight.waiters += 1
        if listener is not None:
            flight.listeners.add(listener)
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if flight.waiters == 1 and not task.done():
                self._landed(key, flight, None)
                task.cancel()
                await asyncio.wait([task])
                if not task.cancelled():
                    task.exception()  # nobody else will look at it
            raise
        finally:
            flight.waiters -= 1
            if listener is not None:
                flight.listeners.remove(listener)
