"""The bot's handle on one yt-dlp fork server process: start it, hand it runs, retire or stop it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from pathlib import Path

from adapters.ytdlp import forkserver_wire as wire
from adapters.ytdlp.forked_child import ForkedChild

log = logging.getLogger("adapters.ytdlp.forkserver")

SERVER_SCRIPT = Path(__file__).with_name("_forkserver_main.py")
_TITLE_ROOM = 8 * 1024
"""Bytes of command line a forked run can show as its own (a longer argv is cut)."""
_HANDSHAKE_SECONDS = 10.0
"""From a run's request to its child's pid: a fork, normally well under a second."""
_STOP_WAIT_SECONDS = 5.0


class ServerProcess:
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
