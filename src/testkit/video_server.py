"""A local video site on 127.0.0.1 for the tests and the offline demo: clips, pages and faults.

Every path's behaviour is set from code (`set_route`), every request is recorded (`hits`,
`requests`, `max_concurrent`), and `reset()` puts the default site back. Default routes:

    /clips/<name>.mp4        each clip of `clips.DEFAULT_CLIPS` (short, medium, long)
    /pages/video.html        an HTML page with a <video> tag (the generic extractor finds it)
    /pages/long.html         the same, embedding the 25-minute clip (duration known only after download)
    /pages/long-with-duration.html  the 25-minute clip behind schema.org JSON-LD: the scrape says 1500 s
    /pages/no-video.html     an HTML page without any video
    /status/<code>           an HTML error page with that status, e.g. /status/404, 403, 410, 503
    /faults/stall.mp4        video headers sent, then no byte of the body
    /faults/slow.mp4         the medium clip trickled over about 2 s
    /faults/stall.html       HTML headers sent, then nothing (a page that never loads)
    /faults/cut.mp4          the medium clip's headers and first 10 KB, then the connection drops
    anything else            a 404 page

Waits inside the server are bounded and end when the server stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

from aiohttp import web

from testkit.clips import DEFAULT_CLIPS, LONG, ensure_clips
from testkit.loopback import HOST, LoopbackServer

_MAX_STALL_SECONDS = 120.0


@dataclass(frozen=True, slots=True)
class Body:
    """Answer with these bytes."""

    data: bytes
    content_type: str = "text/html"
    status: int = 200


@dataclass(frozen=True, slots=True)
class Stall:
    """Send the headers (and `head` bytes), then nothing until the client or the server gives up."""

    content_length: int = 1_000_000
    content_type: str = "video/mp4"
    head: bytes = b""
    max_seconds: float = _MAX_STALL_SECONDS


@dataclass(frozen=True, slots=True)
class Trickle:
    """Send `data` in `chunks` pieces spread evenly over `seconds`."""

    data: bytes
    seconds: float
    content_type: str = "video/mp4"
    chunks: int = 20


@dataclass(frozen=True, slots=True)
class Cut:
    """Promise all of `data` (Content-Length), send the first `after_bytes`, then drop the connection."""

    data: bytes
    after_bytes: int
    content_type: str = "video/mp4"


@dataclass(slots=True)
class FailThen:
    """Answer `times` requests with an error page of `status`, then behave as `then`."""

    status: int
    times: int
    then: Behaviour
    served_failures: int = 0


Behaviour: TypeAlias = Body | Stall | Trickle | Cut | FailThen


@dataclass(frozen=True, slots=True)
class RequestRecord:
    method: str
    path: str
    started: float
    finished: float | None
    status: int | None


def html_page(title: str, body: str = "", head: str = "") -> Body:
    return Body(
        f"<!DOCTYPE html><html><head><title>{title}</title>{head}</head><body>{body}</body></html>".encode()
    )


def status_page(status: int) -> Body:
    return Body(html_page(f"Error {status}", f"<h1>Error {status}</h1>").data, status=status)


def video_page(clip_path: str, title: str = "A test video") -> Body:
    video = f'<video controls><source src="{clip_path}" type="video/mp4"></video>'
    return html_page(title, f"<h1>{title}</h1>{video}")


def json_ld_video_page(content_url: str, title: str, seconds: int) -> Body:
    """A page whose schema.org VideoObject tells the duration: yt-dlp's scrape reports it before any
    download (an absolute `content_url` is needed for the generic extractor to take it)."""
    minutes, rest = divmod(seconds, 60)
    ld = {
        "@context": "https://schema.org",
        "@type": "VideoObject",
        "name": title,
        "duration": f"PT{minutes}M{rest}S",
        "contentUrl": content_url,
        "uploadDate": "2024-01-01",
    }
    script = f'<script type="application/ld+json">{json.dumps(ld)}</script>'
    return html_page(title, f"<h1>{title}</h1>", head=script)


def free_port() -> int:
    """A port nothing listens on right now (for "connection refused")."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class _Log:
    records: list[RequestRecord] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0


class VideoServer(LoopbackServer):
    """`async with VideoServer(clips_dir) as server:` — or `await start()` / `await stop()`."""

    def __init__(self, clips_dir: Path) -> None:
        self._clips_dir = clips_dir
        self._clips: dict[str, Path] = {}
        self._routes: dict[str, Behaviour] = {}
        self._log = _Log()
        super().__init__()

    def _application(self) -> web.Application:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        return app

    async def start(self) -> None:
        self._clips = await ensure_clips(self._clips_dir, DEFAULT_CLIPS)
        await super().start()
        self.reset()  # some default pages carry absolute URLs, so they need the port

    def url(self, path: str) -> str:
        return self.base_url + path

    def clip(self, name: str) -> Path:
        """The file served at /clips/<name>.mp4."""
        return self._clips[name]

    def set_route(self, path: str, behaviour: Behaviour) -> None:
        self._routes[path] = behaviour

    def reset(self) -> None:
        """The default routes again, and every counter back to zero."""
        self._log = _Log()
        self._routes = self._default_routes()

    def hits(self, path: str) -> int:
        return sum(1 for r in self._log.records if r.path == path)

    @property
    def requests(self) -> list[RequestRecord]:
        return list(self._log.records)

    @property
    def max_concurrent(self) -> int:
        """The most requests the server was answering at one time since the last reset."""
        return self._log.max_in_flight

    def _default_routes(self) -> dict[str, Behaviour]:
        routes: dict[str, Behaviour] = {
            f"/clips/{name}.mp4": Body(path.read_bytes(), "video/mp4") for name, path in self._clips.items()
        }
        routes |= {f"/status/{code}": status_page(code) for code in (400, 403, 404, 410, 429, 500, 503)}
        routes["/pages/video.html"] = video_page("/clips/short.mp4")
        routes["/pages/long.html"] = video_page("/clips/long.mp4", "A long test video")
        routes["/pages/long-with-duration.html"] = json_ld_video_page(
            self.url("/clips/long.mp4"), "A long test video", int(LONG.seconds)
        )
        routes["/pages/no-video.html"] = html_page("Just text", "<p>No video here, only words.</p>")
        routes["/faults/stall.mp4"] = Stall()
        routes["/faults/stall.html"] = Stall(content_type="text/html")
        routes["/faults/cut.mp4"] = Cut(self._clips["medium"].read_bytes(), after_bytes=10_000)
        routes["/faults/slow.mp4"] = Trickle(self._clips["medium"].read_bytes(), seconds=2.0)
        return routes

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        log = self._log
        index = len(log.records)
        started = asyncio.get_running_loop().time()
        log.records.append(RequestRecord(request.method, request.path, started, None, None))
        log.in_flight += 1
        log.max_in_flight = max(log.max_in_flight, log.in_flight)
        status: int | None = None
        try:
            behaviour = self._routes.get(request.path, status_page(404))
            response = await self._respond(request, behaviour)
            status = response.status
            return response
        finally:
            log.in_flight -= 1
            finished = asyncio.get_running_loop().time()
            log.records[index] = RequestRecord(request.method, request.path, started, finished, status)

    async def _respond(self, request: web.Request, behaviour: Behaviour) -> web.StreamResponse:
        match behaviour:
            case Body(data, content_type, status):
                return web.Response(body=data, status=status, content_type=content_type)
            case FailThen(status, times, then):
                if behaviour.served_failures < times:
                    behaviour.served_failures += 1
                    return await self._respond(request, status_page(status))
                return await self._respond(request, then)
            case Stall():
                return await self._stall(request, behaviour)
            case Trickle():
                return await self._trickle(request, behaviour)
            case Cut():
                return await self._cut(request, behaviour)

    async def _stall(self, request: web.Request, stall: Stall) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Length": str(stall.content_length)})
        response.content_type = stall.content_type
        await response.prepare(request)
        if request.method != "HEAD":
            with contextlib.suppress(ConnectionError):
                await response.write(stall.head)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), stall.max_seconds)
        return response

    async def _trickle(self, request: web.Request, trickle: Trickle) -> web.StreamResponse:
        data = trickle.data
        response = web.StreamResponse(headers={"Content-Length": str(len(data))})
        response.content_type = trickle.content_type
        await response.prepare(request)
        if request.method == "HEAD":
            return response
        step = -(-len(data) // max(trickle.chunks, 1))
        pause = trickle.seconds / max(trickle.chunks, 1)
        with contextlib.suppress(ConnectionError):
            for offset in range(0, len(data), step):
                await response.write(data[offset : offset + step])
                if offset + step < len(data) and await self._stopped_within(pause):
                    break
            await response.write_eof()
        return response

    async def _cut(self, request: web.Request, cut: Cut) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Length": str(len(cut.data))})
        response.content_type = cut.content_type
        await response.prepare(request)
        if request.method != "HEAD":
            with contextlib.suppress(ConnectionError):
                await response.write(cut.data[: cut.after_bytes])
            if request.transport is not None:
                request.transport.close()
        return response

    async def _stopped_within(self, seconds: float) -> bool:
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except TimeoutError:
            return False
        return True
