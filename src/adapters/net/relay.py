"""Bytes both ways between a client and an upstream, until the upstream is done or nothing moves.

One idle deadline covers both directions: a download sends nothing upstream for minutes while
bytes flow down, so only silence in both directions for `idle_timeout` ends the relay — which is
what a stalled upstream (or a client that stopped reading) looks like.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

CHUNK = 256 * 1024
"""Bytes per read; with the upstream's reader buffer (UPSTREAM_BUFFER) it sets the relay's pace."""
UPSTREAM_BUFFER = 1024 * 1024
"""The upstream reader's limit: what it buffers before pausing the socket, and the longest response head."""


@dataclass(frozen=True, slots=True)
class Stream:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter


Touch = Callable[[], None]
Downstream = Callable[[Stream, Stream, Touch], Coroutine[Any, Any, bool]]
"""Copies upstream → client (it may rewrite the start of it); True when the upstream ended cleanly."""


async def copy(src: asyncio.StreamReader, dst: asyncio.StreamWriter, touch: Touch) -> bool:
    """True when `src` reached its end; False when either side failed."""
    try:
        while chunk := await src.read(CHUNK):
            touch()
            dst.write(chunk)
            await dst.drain()
            touch()
    except OSError:  # ConnectionResetError, BrokenPipeError…
        return False
    return True


async def plain_downstream(upstream: Stream, client: Stream, touch: Touch) -> bool:
    return await copy(upstream.reader, client.writer, touch)


async def relay(
    client: Stream, upstream: Stream, idle_timeout: float, downstream: Downstream = plain_downstream
) -> bool:
    """False when the relay ended for silence (the idle timeout), True otherwise."""
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(idle_timeout) as deadline:

            def touch() -> None:
                deadline.reschedule(loop.time() + idle_timeout)

            await _both_ways(client, upstream, touch, downstream)
    except TimeoutError:
        return False
    return True


async def _both_ways(client: Stream, upstream: Stream, touch: Touch, downstream: Downstream) -> None:
    up = asyncio.create_task(copy(client.reader, upstream.writer, touch))
    down = asyncio.create_task(downstream(upstream, client, touch))
    try:
        await asyncio.wait({up, down}, return_when=asyncio.FIRST_COMPLETED)
        if not down.done() and up.result():
            # The client finished sending (a half-close): the answer may still be on its way.
            with contextlib.suppress(OSError):
                if upstream.writer.can_write_eof():
                    upstream.writer.write_eof()
            await down
    finally:
        for task in (up, down):
            task.cancel()
        await asyncio.gather(up, down, return_exceptions=True)
