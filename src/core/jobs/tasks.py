"""Awaiting with deadlines and signals, and finishing tasks without leaking them."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Sequence
from typing import Any

from ports.clock import Clock


async def first_of(*aws: Awaitable[Any]) -> Any:
    """Await the first of `aws` to finish and cancel the rest; the first one's result, or None.

    The first awaitable is the one whose result matters; the others are deadlines or signals.
    Every task is finished before this returns.
    """
    tasks = [asyncio.ensure_future(a) for a in aws]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await settle(tasks)
    main = tasks[0]
    return main.result() if main in done else None


async def finished_within(task: asyncio.Future[Any], clock: Clock, seconds: float) -> bool:
    """Wait up to `seconds` for `task` without cancelling it; whether it finished.

    One timer task beside `task`, nothing more: this is on every attempt's path."""
    if task.done():
        return True
    deadline = asyncio.ensure_future(clock.sleep(seconds))
    try:
        await asyncio.wait((task, deadline), return_when=asyncio.FIRST_COMPLETED)
    finally:
        deadline.cancel()
    return task.done()


async def all_done(tasks: Sequence[asyncio.Future[Any]]) -> None:
    await asyncio.gather(*[asyncio.shield(t) for t in tasks], return_exceptions=True)


async def settle(tasks: Sequence[asyncio.Future[Any]]) -> None:
    for task in tasks:
        with contextlib.suppress(BaseException):
            await task
