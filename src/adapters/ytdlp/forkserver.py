"""Pre-warmed yt-dlp: a fork server per resolved install, so a run skips Python's start-up,
`import yt_dlp`, the extractors' URL regexes and the ffmpeg probe (measured on 2 cores: a scrape
of a direct link 1.2 -> 0.18 s, of an HTML page 1.7 -> 0.74 s, a download 0.57 -> 0.21 s).

`ForkServers.spawn(argv, env)` is an `adapters.process.Spawner`: for a `<python> -m yt_dlp ...` command it
returns a `ForkedChild` that `ChildProcesses` reads, times out, cancels and kills exactly like a
plain child (its own session, stdout/stderr on pipes of ours, the exit status reported back), or
None, and the caller starts the plain process instead.

One server per (interpreter argv, environment): the locator resolves `<data>/ytdlp/current` at
each spawn and puts the install on PYTHONPATH, so a switch gives new runs a new server while runs
on the old one finish there (SPEC §4: old or new, never a mix). A server is started lazily by the
first run that needs it, exits on its own after `idle_timeout` seconds without a run or a child,
and at once when the bot dies (its end of the control socket closes; it SIGKILLs its children's
groups first). It is retired (no new runs; it exits once its children are done) after `max_age`
seconds or when its yt_dlp files change on disk (a pip upgrade of the packaged yt-dlp).

If a server cannot start, the runs of the next `retry_after` seconds start plain processes (logged
once). If it dies before forking a run, the run goes to a new server, or is started plainly. If it
dies during a run, that child's group is killed and the run ends with an unknown status
(`ForkedChild.wait()` returns None), which `ChildProcesses` reports as a failed run.

`forkserver_process` is the bot's handle on one server process, `forked_child` one run it forked;
the server's own code is `_forkserver_main.py`, started as a script (standard library only), and
the messages both sides exchange are in `forkserver_wire`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import weakref
from collections.abc import Mapping, Sequence

from adapters.ytdlp.forked_child import ForkedChild
from adapters.ytdlp.forkserver_process import ServerProcess

log = logging.getLogger(__name__)

_MODULE = ("-m", "yt_dlp")

_Key = tuple[tuple[str, ...], tuple[tuple[str, str], ...]]


class ForkServers:
    def __init__(
        self,
        *,
        idle_timeout: float = 120.0,
        start_timeout: float = 30.0,
        max_age: float = 3600.0,
        retry_after: float = 300.0,
    ) -> None:
        self._idle_timeout = idle_timeout
        self._start_timeout = start_timeout
        self._max_age = max_age
        self._retry_after = retry_after
        self._servers: dict[_Key, ServerProcess] = {}
        self._retired: list[ServerProcess] = []
        self._no_server_until: dict[_Key, float] = {}
        self._warned = False
        self._closed = False
        self._controls: set[socket.socket] = set()
        # A pool dropped without aclose(): its servers see EOF on their control sockets and exit.
        weakref.finalize(self, _close_sockets, self._controls)

    @property
    def pids(self) -> list[int]:
        """The live servers' pids (retired ones included until they exit)."""
        return [s.pid for s in (*self._servers.values(), *self._retired) if s.pid is not None and s.alive]

    async def spawn(self, argv: Sequence[str], env: Mapping[str, str] | None) -> ForkedChild | None:
        """A forked run of `argv`, or None: start it as a plain process."""
        split = _split(argv)
        if split is None or self._closed:
            return None
        interpreter, args = split
        environment = dict(env) if env is not None else dict(os.environ)
        key: _Key = (interpreter, tuple(sorted(environment.items())))
        for _ in range(2):
            server = await self._server_for(key, interpreter, environment)
            if server is None:
                return None
            child = await server.spawn(list(argv), args)
            if child is not None:
                return child
            # Gone before it forked (an idle exit, a crash) or not answering: a fresh server, once.
            log.info(
                "yt-dlp fork server %s did not take a run (%s); retiring it",
                server.pid,
                server.exit_description,
            )
            self._retire(key, server)
        return None

    async def aclose(self) -> None:
        """Stop every server (they kill whatever children they still have) and start no more."""
        self._closed = True
        servers = [*self._servers.values(), *self._retired]
        self._servers.clear()
        self._retired.clear()
        await asyncio.gather(*(s.stop() for s in servers))

    async def _server_for(
        self, key: _Key, interpreter: tuple[str, ...], env: dict[str, str]
    ) -> ServerProcess | None:
        self._retired = [s for s in self._retired if s.alive]
        if self._no_server_until.get(key, 0.0) > time.monotonic():
            return None
        server = self._servers.get(key)
        if server is not None and server.started.done() and (reason := self._unusable(server)):
            log.info("yt-dlp fork server %s %s; a new one takes the next runs", server.pid, reason)
            self._retire(key, server)
            server = None
        if server is None:
            server = ServerProcess(interpreter, env, self._idle_timeout, self._start_timeout, self._controls)
            self._servers[key] = server
        if await asyncio.shield(server.started):
            return server
        if self._servers.get(key) is server:
            del self._servers[key]
            self._no_server_until[key] = time.monotonic() + self._retry_after
            level = logging.DEBUG if self._warned else logging.WARNING
            self._warned = True
            log.log(
                level,
                "yt-dlp fork server could not start (%s); yt-dlp runs start as plain processes for %g s",
                server.failure,
                self._retry_after,
            )
        return None

    def _unusable(self, server: ServerProcess) -> str | None:
        if not server.alive:
            return f"exited ({server.exit_description})"
        if time.monotonic() - server.started_at > self._max_age:
            return "reached its maximum age"
        if not server.current():
            return "serves yt-dlp files that changed on disk"
        return None

    def _retire(self, key: _Key, server: ServerProcess) -> None:
        if self._servers.get(key) is server:
            del self._servers[key]
        server.retire()
        if server.alive:
            self._retired.append(server)


def _split(argv: Sequence[str]) -> tuple[tuple[str, ...], list[str]] | None:
    """(interpreter argv, yt-dlp's arguments) of `<python> [options] -m yt_dlp <args>`."""
    for i in range(1, len(argv) - 1):
        if (argv[i], argv[i + 1]) == _MODULE:
            return tuple(argv[:i]), list(argv[i + 2 :])
    return None


def _close_sockets(sockets: set[socket.socket]) -> None:
    for sock in sockets:
        sock.close()
    sockets.clear()
