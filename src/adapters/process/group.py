"""Stopping a child: its whole process group, SIGTERM first, SIGKILL after a grace."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Awaitable, Callable


def signal_group(pgid: int, sig: signal.Signals) -> None:
    if pgid <= 1:
        return  # never our own group (0) or every process we may signal (-1)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def stop_group(pgid: int, wait: Callable[[], Awaitable[object]], grace: float) -> None:
    """SIGTERM the group, wait up to `grace` for the leader, then SIGKILL the group anyway — a
    grandchild may ignore SIGTERM after the leader left — and wait until the leader is reaped.

    A cancellation arriving meanwhile is held until the group is dead, then passed on.
    """
    cancelled = False
    signal_group(pgid, signal.SIGTERM)
    try:
        await asyncio.wait_for(asyncio.shield(wait()), grace)
    except TimeoutError:
        pass
    except asyncio.CancelledError:
        cancelled = True
    finally:
        signal_group(pgid, signal.SIGKILL)
    try:
        await asyncio.shield(wait())
    except asyncio.CancelledError:
        cancelled = True
    if cancelled:
        raise asyncio.CancelledError
