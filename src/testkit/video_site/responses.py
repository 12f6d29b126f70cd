"""Each behaviour played out over HTTP. Waits are bounded and end when the server stops."""

from __future__ import annotations

import asyncio
import contextlib

from aiohttp import web

from testkit.video_site.behaviours import Behaviour, Body, Cut, FailThen, Redirect, Stall, Trickle
from testkit.video_site.pages import status_page


async def respond(request: web.Request, behaviour: Behaviour, stopping: asyncio.Event) -> web.StreamResponse:
    match behaviour:
        case Body(data, content_type, status, headers):
            return web.Response(body=data, status=status, content_type=content_type, headers=dict(headers))
        case Redirect(location, status):
            return web.Response(status=status, headers={"Location": location})
        case FailThen(status, times, then):
            if behaviour.served_failures < times:
                behaviour.served_failures += 1
                return await respond(request, status_page(status), stopping)
            return await respond(request, then, stopping)
        case Stall():
            return await _stall(request, behaviour, stopping)
        case Trickle():
            return await _trickle(request, behaviour, stopping)
        case Cut():
            return await _cut(request, behaviour)


async def _stall(request: web.Request, stall: Stall, stopping: asyncio.Event) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Length": str(stall.content_length)})
    response.content_type = stall.content_type
    await response.prepare(request)
    if request.method != "HEAD":
        with contextlib.suppress(ConnectionError):
            await response.write(stall.head)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), stall.max_seconds)
    return response


async def _trickle(request: web.Request, trickle: Trickle, stopping: asyncio.Event) -> web.StreamResponse:
    data = trickle.data
    response = web.StreamResponse(
        headers={"Content-Length": str(len(data))} if trickle.announce_length else {}
    )
    if not trickle.announce_length:
        response.enable_chunked_encoding()
    response.content_type = trickle.content_type
    await response.prepare(request)
    if request.method == "HEAD":
        return response
    step = -(-len(data) // max(trickle.chunks, 1))
    pause = trickle.seconds / max(trickle.chunks, 1)
    with contextlib.suppress(ConnectionError):
        for offset in range(0, len(data), step):
            await response.write(data[offset : offset + step])
            if offset + step < len(data) and await _stopped_within(stopping, pause):
                break
        await response.write_eof()
    return response


async def _cut(request: web.Request, cut: Cut) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Length": str(len(cut.data))})
    response.content_type = cut.content_type
    await response.prepare(request)
    if request.method != "HEAD":
        with contextlib.suppress(ConnectionError):
            await response.write(cut.data[: cut.after_bytes])
        if request.transport is not None:
            request.transport.close()
    return response


async def _stopped_within(stopping: asyncio.Event, seconds: float) -> bool:
    try:
        await asyncio.wait_for(stopping.wait(), seconds)
    except TimeoutError:
        return False
    return True
