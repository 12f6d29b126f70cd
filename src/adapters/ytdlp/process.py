"""Child processes that can always be stopped: each runs in its own session, so a timeout, a
cancellation or a shutdown signals the whole process group (yt-dlp and the ffmpeg it starts).

A stop is SIGTERM to the group, a short grace, then SIGKILL to the group — the SIGKILL goes even
when the leader left on SIGTERM, because a grandchild may have ignored it.

A run starts as a plain process, or through a `Spawner` (the yt-dlp fork server) that hands back a
`Child` with the same contract: a session of its own (pgid = pid), stdout/stderr on pipes, and its
returncode — or None when that cannot be known, which makes the run a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

log = logging.getLogger(__name__)

LineSink = Callable[[str], None]
STDERR_TAIL_BYTES = 64 * 1024
_READ_CHUNK = 64 * 1024
_PIPE_DRAIN_SECONDS = 2.0
STATUS_LOST = "ERROR: yt-dlp's fork server died during the run; its outcome is unknown"


@dataclass(frozen=True, slots=True)
class Exit:
    exit_code: int | None
    signal: int | None
    stderr_tail: str
    timed_out_after: float | None = None
    aborted: bool = False

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.aborted and self.timed_out_after is None


class TailBuffer:
    """The last `limit` bytes of a stream of lines, cut at a line boundary."""

    def __init__(self, limit: int = STDERR_TAIL_BYTES) -> None:
        self._limit = limit
        self._lines: deque[str] = deque()
        self._size = 0

    def add(self, line: str) -> None:
        encoded = len(line.encode()) + 1
        if encoded > self._limit:
            line = line.encode()[-(self._limit - 1) :].decode(errors="ignore")
            encoded = len(line.encode()) + 1
        self._lines.append(line)
        self._size += encoded
        while self._size > self._limit:
            self._size -= len(self._lines.popleft().encode()) + 1

    def text(self) -> str:
        return "".join(line + "\n" for line in self._lines)


class Child(Protocol):
    """A started run: what `ChildProcesses` reads, waits for and signals (by its process group)."""

    @property
    def pid(self) -> int: ...

    @property
    def stdout(self) -> asyncio.StreamReader: ...

    @property
    def stderr(self) -> asyncio.StreamReader: ...

    async def wait(self) -> int | None:
        """The returncode (negative: killed by that signal); None: it ended, but how is unknown."""
        ...

    def close(self) -> None:
        """Release what the run held, once it has ended and its output is read."""
        ...


Spawner = Callable[[Sequence[str], Mapping[str, str] | None], Awaitable[Child | None]]
"""Starts `argv` some other way than a plain process; None: start it plainly after all."""


class _PlainChild:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdout is not None
        assert process.stderr is not None
        self._process = process
        self._stdout = process.stdout
        self._stderr = process.stderr

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def stdout(self) -> asyncio.StreamReader:
        return self._stdout

    @property
    def stderr(self) -> asyncio.StreamReader:
        return self._stderr

    async def wait(self) -> int:
        return await self._process.wait()

    def close(self) -> None:
        pass


class ChildProcesses:
    """Runs child processes and stops them; `shutdown()` aborts the live ones and every later one."""

    def __init__(self, kill_grace_seconds: float = 2.0) -> None:
        self._grace = kill_grace_seconds
        self._live: set[Child] = set()
        self._aborted: set[int] = set()
        self._shutting_down = False

    @property
    def live_pids(self) -> list[int]:
        return [p.pid for p in self._live]

    @property
    def shutting_down(self) -> bool:
        return self._shutting_down

    async def run(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None,
        timeout: float,
        on_stdout: LineSink,
        on_stderr: LineSink,
        spawn: Spawner | None = None,
    ) -> Exit:
        if self._shutting_down:
            return Exit(None, None, "", aborted=True)
        tail = TailBuffer()

        def stderr_line(line: str) -> None:
            tail.add(line)
            on_stderr(line)

        child = await _spawned(spawn, argv, env)
        if child is None:
            try:
                proc = await asyncio.create_subprocess_exec(
                    *argv,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    env=dict(env) if env is not None else None,
                    start_new_session=True,
                )
            except OSError as e:
                return Exit(None, None, f"ERROR: could not start {argv[0]}: {e}\n")
            child = _PlainChild(proc)
        self._live.add(child)
        try:
            if self.shutting_down:
                # shutdown() ran while this one was starting: it is aborted like the others.
                self._aborted.add(child.pid)
                await self._stop(child)
            timed_out = await self._wait(child, timeout, on_stdout, stderr_line)
            code = await child.wait()
        finally:
            self._live.discard(child)
            child.close()
        aborted = child.pid in self._aborted
        self._aborted.discard(child.pid)
        if code is None:
            tail.add(STATUS_LOST)
        return Exit(
            exit_code=code if code is not None and code >= 0 else None,
            signal=-code if code is not None and code < 0 else None,
            stderr_tail=tail.text(),
            timed_out_after=timeout if timed_out and not aborted else None,
            aborted=aborted,
        )

    async def shutdown(self) -> None:
        """Stop every live child (their runs return `aborted`) and refuse new ones."""
        self._shutting_down = True
        live = list(self._live)
        self._aborted.update(p.pid for p in live)
        await asyncio.gather(*(self._stop(p) for p in live))

    async def _wait(self, proc: Child, timeout: float, on_stdout: LineSink, on_stderr: LineSink) -> bool:
        pumps = asyncio.gather(_pump(proc.stdout, on_stdout), _pump(proc.stderr, on_stderr))
        try:
            async with asyncio.timeout(timeout):
                await proc.wait()
                await pumps
        except TimeoutError:
            await self._stop(proc)
            await _drain(pumps)
            return True
        except BaseException:
            # Cancelled (or a bug): the child must not outlive the caller.
            await self._stop(proc)
            await _drain(pumps)
            raise
        return False

    async def _stop(self, proc: Child) -> None:
        # A cancellation arriving meanwhile is held until the group is dead, then passed on.
        cancelled = False
        _signal_group(proc.pid, signal.SIGTERM)
        try:
            await asyncio.wait_for(asyncio.shield(proc.wait()), self._grace)
        except TimeoutError:
            pass
        except asyncio.CancelledError:
            cancelled = True
        finally:
            _signal_group(proc.pid, signal.SIGKILL)
        try:
            await asyncio.shield(proc.wait())
        except asyncio.CancelledError:
            cancelled = True
        if cancelled:
            raise asyncio.CancelledError


async def _spawned(spawn: Spawner | None, argv: Sequence[str], env: Mapping[str, str] | None) -> Child | None:
    if spawn is None:
        return None
    try:
        return await spawn(argv, env)
    except Exception:
        log.exception("could not start %s the warm way; starting it plainly", argv[0])
        return None


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    if pgid <= 1:
        return  # never our own group (0) or every process we may signal (-1)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def _drain(pumps: asyncio.Future[tuple[None, None]]) -> None:
    """Give the readers a bounded moment to see EOF once the group is dead, then drop them."""
    try:
        await asyncio.wait_for(asyncio.shield(pumps), _PIPE_DRAIN_SECONDS)
    except TimeoutError:
        pumps.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pumps
    except asyncio.CancelledError:
        pumps.cancel()
        raise


async def _pump(stream: asyncio.StreamReader, sink: LineSink) -> None:
    """Every line of `stream` to `sink`, however long the line (a --dump-json line can be MBs)."""
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


def _deliver(sink: LineSink, raw: bytes) -> None:
    try:
        sink(raw.decode(errors="replace").rstrip("\r"))
    except Exception:
        # A caller's progress or output callback failing must not strand the child process.
        log.exception("output callback failed")
