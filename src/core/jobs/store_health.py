"""Whether the store takes writes: the outcome of the latest write anybody tried, for /healthz."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from ports.clock import Clock
from ports.errors import StoreDamaged

T = TypeVar("T")


class StoreHealth:
    """The outcome of the latest write anybody tried (a claim, a heartbeat, an enqueue).

    The heartbeat writes every few seconds even when idle, so a store that refuses writes is
    noticed without waiting for a user's link to fail. A store whose data is damaged
    (StoreDamaged) is told to `on_damaged`, once: nothing of the engine should try it again.
    """

    def __init__(self, clock: Clock, on_damaged: Callable[[StoreDamaged], None] = lambda _: None) -> None:
        self._clock = clock
        self._on_damaged = on_damaged
        self.refusing_since: float | None = None

    async def write(self, write: Awaitable[T]) -> T:
        """`write`'s answer, its outcome noted (/healthz reports a store that refuses writes);
        the store's error is raised on for the caller to handle."""
        try:
            answer = await write
        except Exception as error:
            self.refused(self._clock.now())
            if isinstance(error, StoreDamaged):
                self._on_damaged(error)
            raise
        self.wrote()
        return answer

    def wrote(self) -> None:
        self.refusing_since = None

    def refused(self, now: float) -> None:
        if self.refusing_since is None:
            self.refusing_since = now

    @property
    def refusing_writes(self) -> bool:
        return self.refusing_since is not None
