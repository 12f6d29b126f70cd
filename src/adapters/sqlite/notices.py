"""Work announced by another process on the same SQLite file: `vidrelay jobs retry` run beside
the bot. SQLite has no NOTIFY; `PRAGMA data_version` is its cheap stand-in: the number changes
whenever another connection committed to the file, and never for this connection's own commits.
Read every half second through the store's one connection (a read of a counter in the header,
no table touched), a change wakes the idle workers, which then ask the store what is claimable;
their own timers stay the fallback.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Final

from adapters.sqlite.connection import Db, fetch_one
from ports.clock import Clock
from ports.errors import StoreError

log = logging.getLogger("vidrelay.sqlite")

POLL_SECONDS: Final = 0.5
"""A job requeued from the command line is claimed within about this long."""
Read = Callable[[Callable[[Db], Awaitable[int]]], Awaitable[int]]


async def data_version(db: Db) -> int:
    (version,) = await fetch_one(db, "PRAGMA data_version")
    return int(version)


class ForeignCommits:
    """Calls every subscriber's `wake` when another process committed to the file."""

    def __init__(self, read: Read, clock: Clock) -> None:
        self._read = read
        self._clock = clock
        self._wakes: list[Callable[[], None]] = []
        self._task: asyncio.Task[None] | None = None

    def subscribe(self, wake: Callable[[], None]) -> None:
        self._wakes.append(wake)
        if self._task is None:
            self._task = asyncio.create_task(self._watch(), name="vidrelay-sqlite-watch")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _watch(self) -> None:
        seen: int | None = None
        while True:
            try:
                version = await self._read(data_version)
            except StoreError:
                log.debug("data_version not read this time", exc_info=True)
            else:
                if seen is not None and version != seen:
                    for wake in self._wakes:
                        wake()
                seen = version
            await self._clock.sleep(POLL_SECONDS)
