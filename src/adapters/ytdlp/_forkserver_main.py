"""The yt-dlp fork server: a process that has imported yt-dlp and warmed what every run would
otherwise redo, and forks one child per run. `adapters.ytdlp.forkserver` is the bot's side.

Started as `<python> <this file> <control fd> <idle seconds> <padding>` with the environment a
plain `python -m yt_dlp` run would get (PYTHONPATH = the resolved install, or none for the
packaged yt-dlp). Standard library only: of the project it imports `forkserver_wire` alone
(the messages between the two), found beside this file. Single-threaded: one selectors loop
accepts runs, reaps children (SIGCHLD wakes it) and notices when the bot goes.

A child closes every descriptor of the server, starts its own session, takes the run's pipes as
stdout/stderr (stdin stays the server's /dev/null), shows the run's argv as its command line,
and then runs `python -m yt_dlp` the way the interpreter does (runpy), exiting normally.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import importlib
import os
import runpy
import selectors
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING or __package__:
    from adapters.ytdlp import forkserver_wire as wire
else:  # started as a script: this file's folder is sys.path[0]
    import forkserver_wire as wire

_REAP_POLL_SECONDS = 5.0
"""SIGCHLD wakes the loop; this bounds a missed wake-up."""
_BOT_GONE_REAP_SECONDS = 10.0
_SETUP_FAILED = 125
"""A child's exit code when it could not become the run (it never reached yt-dlp)."""
_WARM_URL = "https://vidrelay.invalid/warm-up"
TITLE = "vidrelay-ytdlp-forkserver"


@dataclass(frozen=True, slots=True)
class Job:
    args: list[str]
    """yt-dlp's own arguments (what follows `-m yt_dlp`)."""
    display: list[str]
    """The argv the run would have had as a plain process: its command line in ps and /proc."""
    cwd: str


class Title:
    """The command line `ps` and /proc/<pid>/cmdline show, rewritten in place (Linux).

    The kernel reads it from the argv area of the process's stack; the bot passes a padding
    argument so that a run's argv fits. Found through /proc/self/stat (arg_start, arg_end) and
    used only when that memory holds exactly what /proc/self/cmdline says; otherwise a no-op.
    """

    def __init__(self) -> None:
        self._area: tuple[int, int] | None = None
        try:
            with open("/proc/self/stat", "rb") as stat, open("/proc/self/cmdline", "rb") as cmdline:
                fields = stat.read().rsplit(b")", 1)[1].split()
                current = cmdline.read()
            start, end = int(fields[45]), int(fields[46])  # fields 48 and 49 of proc(5)
        except (OSError, IndexError, ValueError):
            return
        if start > 0 and end - start == len(current) and ctypes.string_at(start, end - start) == current:
            self._area = (start, end - start)

    def set(self, words: list[str]) -> None:
        if self._area is None:
            return
        start, size = self._area
        text = b"\0".join(os.fsencode(w) for w in words)[: size - 1]
        ctypes.memmove(start, text.ljust(size, b"\0"), size)


def warm() -> dict[str, Any]:
    """Everything a run would redo that can be done once, each step best effort: a broken or odd
    install is not the server's business (its children fail the way a plain run would)."""
    started = time.monotonic()
    done: list[str] = []
    try:
        yt_dlp = importlib.import_module("yt_dlp")
    except Exception:  # noqa: BLE001 - a run reports the broken install itself
        return {"warmed": done, "module": None, "stamp": None, "seconds": time.monotonic() - started}
    done.append("import")
    module = getattr(yt_dlp, "__file__", None)

    def extractor_url_patterns() -> None:
        # Each extractor compiles its URL regexes on the first suitable(): ~0.6 s for a link
        # that none claims. Compiled, they are kept on the classes and forked with them.
        extractor = importlib.import_module("yt_dlp.extractor")
        for ie in extractor.gen_extractor_classes():
            ie.suitable(_WARM_URL)

    def generic_extractor() -> None:
        # The fallback for every link no site claims: its module is imported on first use.
        importlib.import_module("yt_dlp.extractor.generic")

    def ffmpeg_versions() -> None:
        # `ffmpeg -bsfs` and `ffprobe -bsfs` run once per process; the answers are cached on the
        # class per executable path. The bot retires a server after a while, so an upgraded
        # ffmpeg is noticed.
        ffmpeg = importlib.import_module("yt_dlp.postprocessor.ffmpeg")
        _ = ffmpeg.FFmpegPostProcessor().available

    def lazy_stdlib() -> None:
        importlib.import_module("ctypes")

    for step in (extractor_url_patterns, generic_extractor, ffmpeg_versions, lazy_stdlib):
        with contextlib.suppress(Exception):  # warming is an optimisation, never a failure
            step()
            done.append(step.__name__)
    return {
        "warmed": done,
        "module": module,
        "stamp": wire.stamp(module) if isinstance(module, str) else None,
        "seconds": round(time.monotonic() - started, 3),
    }


def _send(sock: socket.socket, message: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        sock.send(wire.encode(message), socket.MSG_NOSIGNAL)


def _on_sigchld(_signum: int, _frame: object) -> None:
    """Only there so the wake-up fd is written; the loop reaps."""


class Server:
    def __init__(self, control: socket.socket, idle_seconds: float, title: Title) -> None:
        self._control: socket.socket | None = control
        self._idle = idle_seconds
        self._title = title
        self._runs: dict[int, socket.socket | None] = {}
        """Live children by pid, with the channel to report their status on (None once the bot left)."""
        self._retiring = False
        self._bot_gone_at: float | None = None
        self._last_activity = time.monotonic()
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)

    def serve(self) -> Job | None:
        """Runs the loop. Returns None in the server when it is time to exit, and the job in a child."""
        assert self._control is not None
        signal.set_wakeup_fd(self._wake_w)
        signal.signal(signal.SIGCHLD, _on_sigchld)
        self._selector.register(self._control, selectors.EVENT_READ)
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        try:
            while (timeout := self._next_timeout()) is not None:
                for key, _ in self._selector.select(timeout):
                    job = self._on_ready(key.fileobj)
                    if job is not None:
                        return job  # in the child
                self._reap()
            return None
        finally:
            if self._wake_w >= 0:  # the server, leaving (a child has cleaned up already)
                self._close_all()

    def _next_timeout(self) -> float | None:
        """How long to wait for something to happen; None when the server should exit."""
        now = time.monotonic()
        if self._bot_gone_at is not None:
            if not self._runs or now - self._bot_gone_at > _BOT_GONE_REAP_SECONDS:
                return None
            return 0.05
        if self._runs:
            return _REAP_POLL_SECONDS
        if self._retiring:
            return None
        remaining = self._idle - (now - self._last_activity)
        return remaining if remaining > 0 else None

    def _on_ready(self, fileobj: object) -> Job | None:
        if fileobj is self._control:
            return self._on_control()
        if fileobj == self._wake_r:
            with contextlib.suppress(OSError):
                while os.read(self._wake_r, 4096):
                    pass
            return None
        if isinstance(fileobj, socket.socket):
            self._on_channel(fileobj)
        return None

    def _on_control(self) -> Job | None:
        assert self._control is not None
        try:
            data, fds, flags, _ = socket.recv_fds(self._control, wire.REQUEST_BYTES, wire.REQUEST_FDS)
        except BlockingIOError:
            return None
        except OSError:
            data, fds, flags = b"", [], 0
        if not data and not fds:
            self._on_bot_gone()
            return None
        self._last_activity = time.monotonic()
        message = wire.decode(data) if not flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC) else None
        if message is None:
            for fd in fds:
                os.close(fd)
            return None
        if message.get("retire"):
            self._retiring = True
            for fd in fds:
                os.close(fd)
            return None
        if len(fds) != wire.REQUEST_FDS:
            for fd in fds:
                os.close(fd)
            return None
        return self._fork(message, *fds)

    def _fork(self, message: dict[str, Any], channel_fd: int, out_fd: int, err_fd: int) -> Job | None:
        channel = socket.socket(fileno=channel_fd)
        try:
            job = Job(
                args=[str(a) for a in message["args"]],
                display=[str(a) for a in message["display"]],
                cwd=str(message["cwd"]),
            )
            pid = os.fork()
        except (KeyError, TypeError, OSError):
            channel.close()
            os.close(out_fd)
            os.close(err_fd)
            return None
        if pid == 0:
            self._become_child(channel, out_fd, err_fd, job)
            return job
        os.close(out_fd)
        os.close(err_fd)
        self._runs[pid] = channel
        self._selector.register(channel, selectors.EVENT_READ, pid)
        return None

    def _become_child(self, channel: socket.socket, out_fd: int, err_fd: int, job: Job) -> None:
        """In the forked child: drop the server, become the run. Never returns into the loop on error."""
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            self._close_all()
            os.setsid()
            for fd, target in ((out_fd, 1), (err_fd, 2)):
                if fd != target:
                    os.dup2(fd, target)
                    os.close(fd)
            _send(channel, {"pid": os.getpid()})
            channel.close()
            with contextlib.suppress(OSError):
                os.chdir(job.cwd)
            self._title.set(job.display)
        except BaseException:  # noqa: BLE001 - a child must never fall back into the server's loop
            os._exit(_SETUP_FAILED)

    def _close_all(self) -> None:
        """Every descriptor the server holds: in a child, none may outlive the fork."""
        self._selector.close()
        if self._control is not None:
            self._control.close()
        for channel in self._runs.values():
            if channel is not None:
                channel.close()
        self._runs.clear()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._wake_r = self._wake_w = -1

    def _on_channel(self, channel: socket.socket) -> None:
        """Readable: the bot closed its end (it sends nothing on a channel)."""
        try:
            if channel.recv(64):
                return
        except OSError:
            pass
        pid = self._selector.get_key(channel).data
        self._selector.unregister(channel)
        channel.close()
        if pid in self._runs:
            self._runs[pid] = None
            wire.kill_run(pid)

    def _on_bot_gone(self) -> None:
        assert self._control is not None
        self._selector.unregister(self._control)
        self._bot_gone_at = time.monotonic()
        for pid in self._runs:
            wire.kill_run(pid)

    def _reap(self) -> None:
        while self._runs:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self._last_activity = time.monotonic()
            if pid not in self._runs:
                continue
            channel = self._runs.pop(pid)
            if channel is not None:
                self._selector.unregister(channel)
                _send(channel, {"status": status})
                channel.close()


def main() -> None:
    control = socket.socket(fileno=int(sys.argv[1]))
    idle_seconds = float(sys.argv[2])
    here = os.path.dirname(os.path.realpath(__file__))
    if sys.path and os.path.realpath(sys.path[0] or ".") == here:
        sys.path[0] = os.getcwd()  # what `python -m yt_dlp` has first, not this file's folder
    title = Title()
    title.set([sys.executable, TITLE, os.environ.get("PYTHONPATH") or "packaged"])
    ready = warm()
    gc.collect()
    gc.freeze()  # the warmed objects stay out of the children's collections: fewer copied pages
    ready["pid"] = os.getpid()
    ready["threads"] = threading.active_count()  # more than one and forking is unsafe: the bot says no
    _send(control, {"ready": ready})
    job = Server(control, idle_seconds, title).serve()
    if job is None:
        return
    # The child: `python -m yt_dlp <args>`, exiting through the interpreter (SystemExit, atexit,
    # flushed streams, a KeyboardInterrupt's signal) exactly as a plain process does.
    sys.argv = [job.display[0], *job.args]
    runpy.run_module("yt_dlp", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
