"""Reading a child's pipes line by line, however long a line is."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

LineSink = Callable[[str], None]
_READ_CHUNK = 64 * 1024
_DRAIN_SECONDS = 2.0


async def pump(stream: asyncio.StreamReader, sink: LineSink) -> None:
    """Every line of `stream` to `sink` (a yt-dlp --dump-json line can be megabytes)."""
    partial: list[bytes] = []
    while chunk := await stream.read(_READ_CHUNK):
        first, *rest = chunk.split(b"\n")
        partial.append(first)
        if not rest:
            continue
        _deliver(sink, b"".join(partial))
        *complete, last = rest
        for line in complete:
            _deliver(sink, line)
        partial = [last]
    if any(partial):
        _deliver(sink, b"".join(partial))


async def drain(pumps: asyncio.Future[tuple[None, None]]) -> None:
    """Give the readers a bounded moment to see EOF once the group is dead, then drop them: a
    grandchild that escaped the group may hold the pipes open forever."""
    try:
        await asyncio.wait_for(asyncio.shield(pumps), _DRAIN_SECONDS)
    except TimeoutError:
        pumps.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pumps
    except asyncio.CancelledError:
        pumps.cancel()
        raise


def _deliver(sink: LineSink, raw: bytes) -> None:
    try:
        sink(raw.decode(errors="replace").rstrip("\r"))
    except Exception:
        # A caller's progress or output callback failing must not strand the child process.
        log.exception("output callback failed")
