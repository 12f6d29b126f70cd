"""`ChildProcesses`: runs children under a deadline and stops the live ones on shutdown."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from adapters.process.child import Child, Spawner, start_plain
from adapters.process.exit import Exit
from adapters.process.group import stop_group
from adapters.process.pipes import LineSink, drain, pump
from adapters.process.tail import TailBuffer

log = logging.getLogger(__name__)

STATUS_LOST = "ERROR: the server that started this run died during it; its outcome is unknown"


@dataclass(frozen=True, slots=True)
class Captured:
    exit: Exit
    stdout: str


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

    async def capture(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> Captured:
        """A run whose whole stdout the caller wants (a version, a JSON report)."""
        lines: list[str] = []
        ended = await self.run(
            argv, env=env, cwd=cwd, timeout=timeout, on_stdout=lines.append, on_stderr=_ignore
        )
        return Captured(ended, "\n".join(lines))

    async def run(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None,
        timeout: float,
        on_stdout: LineSink,
        on_stderr: LineSink,
        cwd: Path | None = None,
        spawn: Spawner | None = None,
    ) -> Exit:
        """Run `argv` to its end or its deadline. `spawn` may start it instead of a plain process
        (never with a `cwd`: a spawner starts runs in the caller's working directory)."""
        if self._shutting_down:
            return Exit(None, None, "", aborted=True)
        tail = TailBuffer()

        def stderr_line(line: str) -> None:
            tail.add(line)
            on_stderr(line)

        child = await _spawned(spawn, argv, env) if cwd is None else None
        if child is None:
            try:
                child = await start_plain(argv, env, cwd)
            except OSError as e:
                return Exit(None, None, f"ERROR: could not start {argv[0]}: {e}\n")
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

    async def _wait(self, child: Child, timeout: float, on_stdout: LineSink, on_stderr: LineSink) -> bool:
        pumps = asyncio.gather(pump(child.stdout, on_stdout), pump(child.stderr, on_stderr))
        try:
            async with asyncio.timeout(timeout):
                await child.wait()
                await pumps
        except TimeoutError:
            await self._stop(child)
            await drain(pumps)
            return True
        except BaseException:
            # Cancelled (or a bug): the child must not outlive the caller.
            await self._stop(child)
            await drain(pumps)
            raise
        return False

    async def _stop(self, child: Child) -> None:
        await stop_group(child.pid, child.wait, self._grace)


async def _spawned(spawn: Spawner | None, argv: Sequence[str], env: Mapping[str, str] | None) -> Child | None:
    if spawn is None:
        return None
    try:
        return await spawn(argv, env)
    except Exception:
        log.exception("could not start %s the warm way; starting it plainly", argv[0])
        return None


def _ignore(_: str) -> None:
    pass
