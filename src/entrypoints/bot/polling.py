"""Long polling, and on a shared store only while this ingest holds its lock.

Telegram hands a bot's updates to one poller. On PostgreSQL the ingest lock says who that is
(adapters/postgres/ingest_lock.py): polling starts when the lock is held, stops the moment it is
in doubt, and starts again once the lock is taken again — the process itself never exits for it.
While it does not poll, /healthz says so (not receiving updates). Each stop lets a batch already
fetched finish its try to reach the inbox (core/incoming/updates/polling.py): what it did not
keep was not confirmed, so Telegram hands it out again to whoever polls next.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Sequence
from typing import Protocol

from core.incoming.updates.polling import Polling
from entrypoints.monitoring.liveness import Liveness

log = logging.getLogger("vidrelay.run")
EXIT_OK, EXIT_FATAL = 0, 1


class PollingLock(Protocol):
    @property
    def held(self) -> asyncio.Event: ...

    @property
    def in_doubt(self) -> asyncio.Event: ...


class AlwaysHeld:
    """The lock of a store only one process uses: nobody else could poll."""

    def __init__(self) -> None:
        self.held, self.in_doubt = asyncio.Event(), asyncio.Event()
        self.held.set()


async def poll(
    polling: Polling, kinds: Sequence[str], stop: asyncio.Event, liveness: Liveness, lock: PollingLock
) -> int:
    """Poll while `lock` is held, until `stop`; EXIT_FATAL when polling itself dies."""
    while True:
        if not await _first(lock.held.wait(), stop.wait()):
            return EXIT_OK
        halt = asyncio.Event()  # this run's end: the stop, or the lock in doubt
        running = asyncio.create_task(polling.run(halt, kinds), name="vidrelay-polling")
        liveness.polling(running)
        doubt, stopping = asyncio.ensure_future(lock.in_doubt.wait()), asyncio.ensure_future(stop.wait())
        await asyncio.wait({running, doubt, stopping}, return_when=asyncio.FIRST_COMPLETED)
        doubt.cancel()
        stopping.cancel()
        if running.done():
            error = running.exception()
            log.critical("polling stopped unexpectedly", exc_info=error)
            return EXIT_FATAL
        log.info(
            "signal received: stopping polling" if stop.is_set() else "polling stops: the lock is in doubt"
        )
        halt.set()
        with contextlib.suppress(Exception):
            await running  # a batch already fetched finishes its try to reach the inbox
        if stop.is_set():
            return EXIT_OK


async def _first(wanted: Awaitable[object], otherwise: Awaitable[object]) -> bool:
    """Whether `wanted` finished and `otherwise` did not; both are cancelled."""
    tasks = [asyncio.ensure_future(wanted), asyncio.ensure_future(otherwise)]
    done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in tasks:
        task.cancel()
    return tasks[0] in done and tasks[1] not in done
