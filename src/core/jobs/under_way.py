"""Work started and not awaited, every piece of which still ends before its owner does."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from core.jobs.tasks import settle


class UnderWay:
    """Writes a worker goes on without waiting for (a job's deletion while the next one runs, the
    giving back of jobs it held ahead): kept referenced so none is garbage-collected mid-flight,
    and waited for at the worker's end so none is cut off by the stop that follows."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Future[Any]] = set()

    def start(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def finish(self) -> None:
        await settle(list(self._tasks))
