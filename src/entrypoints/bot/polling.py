"""Long polling, and on a shared store only while this ingest holds its lock.

Telegram hands a bot's updates to one poller. On PostgreSQL the ingest lock says who that is
(adapters/postgres/ingest_lock.py): polling starts when the lock is held, stops the moment it is
in doubt, and starts again once the lock is taken again — the process itself never exits for it.
While it does not poll, /healthz says so (not receiving updates).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from typing import Protocol

from aiogram import Bot, Dispatcher

from entrypoints.monitoring.health import Liveness

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
    dispatcher: Dispatcher,
    bot: Bot,
    stop: asyncio.Event,
    liveness: Liveness,
    lock: PollingLock,
    *,
    poll_seconds: int = 10,
) -> int:
    """Poll while `lock` is held, until `stop`; EXIT_FATAL when polling itself dies. Each long poll
    lasts at most `poll_seconds`."""
    while True:
        if not await _first(lock.held.wait(), stop.wait()):
            return EXIT_OK
        polling = asyncio.create_task(
            dispatcher.start_polling(
                bot,
                handle_signals=False,
                close_bot_session=False,
                allowed_updates=dispatcher.resolve_used_update_types(),
                polling_timeout=poll_seconds,
            )
        )
        liveness.polling(polling)
        doubt, stopping = asyncio.ensure_future(lock.in_doubt.wait()), asyncio.ensure_future(stop.wait())
        await asyncio.wait({polling, doubt, stopping}, return_when=asyncio.FIRST_COMPLETED)
        doubt.cancel()
        stopping.cancel()
        if polling.done():
            error = polling.exception()
            log.critical("polling stopped unexpectedly", exc_info=error)
            return EXIT_FATAL
        if stop.is_set():
            log.info("signal received: stopping polling")
        # Not polling.cancel(): aiogram then logs "Polling stopped" and leaves its inner polling
        # task running. Its stop signal cancels that task, and the long poll with it, at once.
        with contextlib.suppress(RuntimeError):
            await dispatcher.stop_polling()
        with contextlib.suppress(Exception):
            await polling
        if stop.is_set():
            return EXIT_OK


async def _first(wanted: Awaitable[object], otherwise: Awaitable[object]) -> bool:
    """Whether `wanted` finished and `otherwise` did not; both are cancelled."""
    tasks = [asyncio.ensure_future(wanted), asyncio.ensure_future(otherwise)]
    done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in tasks:
        task.cancel()
    return tasks[0] in done and tasks[1] not in done
