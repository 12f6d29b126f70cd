"""A started child: a plain process, or one a `Spawner` (the yt-dlp fork server) started for us."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol


class Child(Protocol):
    """What the runner reads, waits for and signals. Its pid leads a session of its own
    (pgid = pid), so signalling the group reaches everything it started."""

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


async def start_plain(argv: Sequence[str], env: Mapping[str, str] | None, cwd: Path | None) -> Child:
    """Raises OSError when the program cannot be started."""
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(env) if env is not None else None,
        cwd=cwd,
        start_new_session=True,
    )
    return _PlainChild(process)


class _PlainChild(Child):
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
