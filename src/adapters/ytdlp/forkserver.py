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

The server's code is `_forkserver_main.py`, started as a script (standard library only); the
messages both sides exchange are in `forkserver_wire`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from adapters.ytdlp import forkserver_wire as wire

log = logging.getLogger(__name__)

SERVER_SCRIPT = Path(__file__).with_name("_forkserver_main.py")
_MODULE = ("-m", "yt_dlp")
_TITLE_ROOM = 8 * 1024
"""Bytes of command line a forked run can show as its own (a longer argv is cut)."""
_HANDSHAKE_SECONDS = 10.0
"""From a run's request to its child's pid: a fork, normally well under a second."""
_LOST_KILL_WAIT_SECONDS = 5.0
_STOP_WAIT_SECONDS = 5.0

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
        self._servers: dict[_Key, _Server] = {}
        self._retired: list[_Server] = []
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
    ) -> _Server | None:
        self._retired = [s for s in self._retired if s.alive]
        if self._no_server_until.get(key, 0.0) > time.monotonic():
            return None
        server = self._servers.get(key)
        if server is not None and server.started.done() and (reason := self._unusable(server)):
            log.info("yt-dlp fork server %s %s; a new one takes the next runs", server.pid, reason)
            self._retire(key, server)
            server = None
        if server is None:
            server = _Server(interpreter, env, self._idle_timeout, self._start_timeout, self._controls)
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

    def _unusable(self, server: _Server) -> str | None:
        if not server.alive:
            return f"exited ({server.exit_description})"
        if time.monotonic() - server.started_at > self._max_age:
            return "reached its maximum age"
        if not server.current():
            return "serves yt-dlp files that changed on disk"
        return None

    def _retire(self, key: _Key, server: _Server) -> None:
        if self._servers.get(key) is server:
            del self._servers[key]
        server.retire()
        if server.alive:
            self._retired.append(server)


class _Server:
    """The bot's handle on one server process; its start runs as a task the first runs share."""

    def __init__(
        self,
        interpreter: tuple[str, ...],
        env: dict[str, str],
        idle_timeout: float,
        start_timeout: float,
        controls: set[socket.socket],
    ) -> None:
        self._interpreter = interpreter
        self._env = env
        self._idle_timeout = idle_timeout
        self._start_timeout = start_timeout
        self._controls = controls
        self._control: socket.socket | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._module: str | None = None
        self._stamp: list[int] | None = None
        self.failure = ""
        self.started_at = time.monotonic()
        self.started: asyncio.Task[bool] = asyncio.ensure_future(self._start())

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.returncode is None

    @property
    def exit_description(self) -> str:
        code = self._process.returncode if self._process is not None else None
        if code is None:
            return "running"
        return f"signal {-code}" if code < 0 else f"code {code}"

    def current(self) -> bool:
        """Its yt_dlp package is still the one on disk (the file it imported is unchanged)."""
        if self._module is None:
            return True
        return wire.stamp(self._module) == self._stamp

    async def _start(self) -> bool:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._process = await asyncio.create_subprocess_exec(
                *self._interpreter,
                str(SERVER_SCRIPT),
                str(theirs.fileno()),
                repr(self._idle_timeout),
                " " * _TITLE_ROOM,  # room for a forked run's command line (see _forkserver_main.Title)
                pass_fds=(theirs.fileno(),),
                env=self._env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as e:
            ours.close()
            self.failure = f"could not run {self._interpreter[0]}: {e}"
            return False
        finally:
            theirs.close()
        ours.setblocking(False)
        self._control = ours
        self._controls.add(ours)
        try:
            async with asyncio.timeout(self._start_timeout):
                data = await asyncio.get_running_loop().sock_recv(ours, wire.REPLY_BYTES)
        except TimeoutError:
            self.failure = f"not ready after {self._start_timeout:g} s"
            await self.stop()
            return False
        except BaseException:
            await asyncio.shield(self.stop())
            raise
        ready = (wire.decode(data) or {}).get("ready")
        if not isinstance(ready, dict):
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_STOP_WAIT_SECONDS):
                    await self._process.wait()
            self.failure = f"it exited at start ({self.exit_description})"
            await self.stop()
            return False
        if ready.get("threads") != 1:
            self.failure = f"it runs {ready.get('threads')} threads after warming up; forking it is unsafe"
            await self.stop()
            return False
        module = ready.get("module")
        self._module = module if isinstance(module, str) else None
        self._stamp = ready.get("stamp")
        log.info(
            "yt-dlp fork server %s ready in %s s (warmed: %s; %s)",
            self._process.pid,
            ready.get("seconds"),
            ", ".join(ready.get("warmed") or []) or "nothing",
            self._env.get("PYTHONPATH") or "packaged yt-dlp",
        )
        return True

    async def spawn(self, display: list[str], args: list[str]) -> ForkedChild | None:
        """The forked run, or None when this server cannot take it (gone, or not answering)."""
        control = self._control
        if control is None or not self.alive:
            return None
        request = wire.encode({"args": args, "display": display, "cwd": os.getcwd()})
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            socket.send_fds(control, [request], [theirs.fileno(), out_w, err_w])
        except OSError:
            for fd in (out_r, err_r):
                os.close(fd)
            mine.close()
            return None
        finally:
            # In flight, the server holds them; if it dies unread, they close and `mine` sees EOF.
            theirs.close()
            os.close(out_w)
            os.close(err_w)
        mine.setblocking(False)
        try:
            async with asyncio.timeout(_HANDSHAKE_SECONDS):
                first = wire.decode(await asyncio.get_running_loop().sock_recv(mine, wire.REPLY_BYTES))
        except TimeoutError:
            first = None
        except BaseException:
            # Cancelled: closing our end makes the server SIGKILL the child if it forked one.
            for fd in (out_r, err_r):
                os.close(fd)
            mine.close()
            raise
        pid = first.get("pid") if first is not None else None
        if not isinstance(pid, int) or pid <= 1:
            # EOF: gone before forking. A status first: the child died before it could say its pid
            # (it never reached yt-dlp). Either way nothing ran: the caller may start it elsewhere.
            for fd in (out_r, err_r):
                os.close(fd)
            mine.close()
            return None
        return await ForkedChild.attach(pid, mine, out_r, err_r)

    def retire(self) -> None:
        """No more runs: the server exits once its children are reaped (at once if it has none)."""
        if self._control is not None:
            with contextlib.suppress(OSError):
                self._control.send(wire.encode({"retire": True}))

    async def stop(self) -> None:
        """Close the control socket (the server kills its children and exits); SIGKILL if it lingers."""
        if not self.started.done() and asyncio.current_task() is not self.started:
            self.started.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.started
        if self._control is not None:
            self._controls.discard(self._control)
            self._control.close()
            self._control = None
        process = self._process
        if process is None or process.returncode is not None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(process.wait()), _STOP_WAIT_SECONDS)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await asyncio.shield(process.wait())


class ForkedChild:
    """A run forked by a server: the `adapters.process.Child` that `ChildProcesses` drives."""

    def __init__(
        self,
        pid: int,
        channel: socket.socket,
        stdout: asyncio.StreamReader,
        stderr: asyncio.StreamReader,
        transports: list[asyncio.BaseTransport],
    ) -> None:
        self._pid = pid
        self._channel = channel
        self._stdout = stdout
        self._stderr = stderr
        self._transports = transports
        self._pidfd = _pidfd_open(pid)
        self._status: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._reader = asyncio.ensure_future(self._read_status())

    @classmethod
    async def attach(cls, pid: int, channel: socket.socket, out_r: int, err_r: int) -> ForkedChild:
        loop = asyncio.get_running_loop()
        readers: list[asyncio.StreamReader] = []
        transports: list[asyncio.BaseTransport] = []
        try:
            for fd in (out_r, err_r):
                reader = asyncio.StreamReader(loop=loop)
                protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
                pipe = os.fdopen(fd, "rb", buffering=0)
                transport, _ = await loop.connect_read_pipe(_returning(protocol), pipe)
                readers.append(reader)
                transports.append(transport)
        except BaseException:
            for opened in transports:
                opened.close()
            for fd in (out_r, err_r)[len(transports) :]:
                with contextlib.suppress(OSError):
                    os.close(fd)
            channel.close()  # the server kills the child
            raise
        return cls(pid, channel, readers[0], readers[1], transports)

    @property
    def pid(self) -> int:
        return self._pid

    @property
    def stdout(self) -> asyncio.StreamReader:
        return self._stdout

    @property
    def stderr(self) -> asyncio.StreamReader:
        return self._stderr

    async def wait(self) -> int | None:
        """The returncode as asyncio gives it (negative: the signal); None if the server died first."""
        return await asyncio.shield(self._status)

    def close(self) -> None:
        for transport in self._transports:
            transport.close()
        if self._reader.done():
            self._release()
        else:
            # Not before the reader has let go of them: the loop drops a reader by fd number, and a
            # number closed now may already belong to the next run when it does.
            self._reader.add_done_callback(lambda _: self._release())
            self._reader.cancel()

    def _release(self) -> None:
        self._channel.close()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None

    async def _read_status(self) -> None:
        try:
            message = wire.decode(await asyncio.get_running_loop().sock_recv(self._channel, wire.REPLY_BYTES))
        except OSError:
            message = None
        status = message.get("status") if message is not None else None
        if isinstance(status, int):
            self._status.set_result(os.waitstatus_to_exitcode(status))
            return
        # The server died: nobody can reap this child for us or tell how it ended, and it must
        # not go on unsupervised.
        log.warning("yt-dlp fork server died during run %s; killing that run", self._pid)
        wire.kill_run(self._pid)
        await self._gone(_LOST_KILL_WAIT_SECONDS)
        self._status.set_result(None)

    async def _gone(self, timeout: float) -> None:
        """Until the child has exited (it is not ours to reap): its pidfd turns readable."""
        if self._pidfd is None:
            for _ in range(int(timeout / 0.05)):
                if not _exists(self._pid):
                    return
                await asyncio.sleep(0.05)
            return
        loop = asyncio.get_running_loop()
        exited: asyncio.Future[None] = loop.create_future()

        def readable() -> None:
            if not exited.done():
                exited.set_result(None)

        loop.add_reader(self._pidfd, readable)
        try:
            await asyncio.wait_for(exited, timeout)
        except TimeoutError:
            pass
        finally:
            loop.remove_reader(self._pidfd)


def _returning(protocol: asyncio.StreamReaderProtocol) -> Callable[[], asyncio.StreamReaderProtocol]:
    return lambda: protocol


def _split(argv: Sequence[str]) -> tuple[tuple[str, ...], list[str]] | None:
    """(interpreter argv, yt-dlp's arguments) of `<python> [options] -m yt_dlp <args>`."""
    for i in range(1, len(argv) - 1):
        if (argv[i], argv[i + 1]) == _MODULE:
            return tuple(argv[:i]), list(argv[i + 2 :])
    return None


def _pidfd_open(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None  # an old kernel, or it is gone already


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _close_sockets(sockets: set[socket.socket]) -> None:
    for sock in sockets:
        sock.close()
    sockets.clear()
