"""The video site's server: routes set from code, every request recorded."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from testkit.clips import DEFAULT_CLIPS, ensure_clips
from testkit.loopback import LoopbackServer
from testkit.video_site.behaviours import Behaviour, Body
from testkit.video_site.gallery import Embedded, gallery_routes
from testkit.video_site.hls import PLAYLIST_TYPE, SEGMENT_TYPE, ensure_segments
from testkit.video_site.ladder import ladder_routes
from testkit.video_site.pages import status_page
from testkit.video_site.responses import respond
from testkit.video_site.site_map import default_routes


@dataclass(frozen=True, slots=True)
class RequestRecord:
    method: str
    path: str
    started: float
    finished: float | None
    status: int | None
    headers: Mapping[str, str] = field(default_factory=dict)
    """The request's headers as sent (a cookie, a range, the user agent)."""


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

    async def add_hls(self, prefix: str, clip: str = "medium", segments_base: str | None = None) -> list[str]:
        """Serve clip `clip` as `<prefix>/index.m3u8` and `<prefix>/seg<N>.ts`; the playlist names the
        segments under `segments_base` (another server's base URL) or on this server. The segment paths."""
        segments = await ensure_segments(self._clips_dir, self._clips[clip])
        paths = [f"{prefix}/seg{i}.ts" for i in range(len(segments.files))]
        base = segments_base if segments_base is not None else self.base_url
        playlist = segments.playlist([base + path for path in paths])
        self.set_route(f"{prefix}/index.m3u8", Body(playlist.encode(), PLAYLIST_TYPE))
        for path, file in zip(paths, segments.files, strict=True):
            self.set_route(path, Body(file.read_bytes(), SEGMENT_TYPE))
        return paths

    async def add_ladder(self, prefix: str = "/ladder", title: str = "A video in four heights") -> str:
        """Serve one video in several heights (see `ladder`) under `prefix`; the page's URL."""
        for path, behaviour in (await ladder_routes(self._clips_dir, prefix, title)).items():
            self.set_route(path, behaviour)
        return self.url(f"{prefix}/index.html")

    async def add_gallery(
        self, prefix: str, videos: Sequence[Embedded], title: str = "Today in clips"
    ) -> str:
        """Serve a page embedding `videos`, one <video> each (see `gallery`), under `prefix`;
        the page's URL."""
        for path, behaviour in (await gallery_routes(self._clips_dir, prefix, videos, title)).items():
            self.set_route(path, behaviour)
        return self.url(f"{prefix}/index.html")

    def reset(self) -> None:
        """The default routes again, and every counter back to zero."""
        self._log = _Log()
        self._routes = default_routes(self._clips, self.url)

    def hits(self, path: str) -> int:
        return sum(1 for r in self._log.records if r.path == path)

    @property
    def requests(self) -> list[RequestRecord]:
        return list(self._log.records)

    @property
    def max_concurrent(self) -> int:
        """The most requests the server was answering at one time since the last reset."""
        return self._log.max_in_flight

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        log = self._log
        index = len(log.records)
        started = asyncio.get_running_loop().time()
        headers = dict(request.headers)
        log.records.append(RequestRecord(request.method, request.path, started, None, None, headers))
        log.in_flight += 1
        log.max_in_flight = max(log.max_in_flight, log.in_flight)
        status: int | None = None
        try:
            behaviour = self._routes.get(request.path, status_page(404))
            response = await respond(request, behaviour, self._stopping)
            status = response.status
            return response
        finally:
            log.in_flight -= 1
            finished = asyncio.get_running_loop().time()
            log.records[index] = RequestRecord(
                request.method, request.path, started, finished, status, headers
            )
