"""What the bot (`forkserver`) and its yt-dlp fork server (`_forkserver_main`) agree on.

Standard library only, and no import of the project: the server runs it in an interpreter of its
own, where this file is a top-level module found beside the server's script.

Messages are JSON objects, one per SOCK_SEQPACKET packet:

    control socket (the bot's socketpair; inherited by the server as <control fd>)
      server -> bot  {"ready": {...}}       warmed up; what was warmed and which yt_dlp file
      bot -> server  {"args", "display", "cwd"} + fds [channel, stdout, stderr]: one run
      bot -> server  {"retire": true}       take no more runs; exit once the last child is reaped
      EOF            the bot is gone: SIGKILL every child's process group, reap, exit
    channel (one per run, the bot keeps the other end)
      child -> bot   {"pid": N}             sent after setsid(): the process group exists
      server -> bot  {"status": W}          the wait status, once the child is reaped
      EOF from bot   before the status: the bot gave up on the run; SIGKILL the child's group
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
from typing import Any

REQUEST_BYTES = 1 << 20
"""The largest message the server reads (a run's argv, twice)."""
REPLY_BYTES = 64 * 1024
"""The largest message the bot reads (ready, pid, status)."""
REQUEST_FDS = 3
"""A run request carries its channel, stdout and stderr."""


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()


def decode(data: bytes) -> dict[str, Any] | None:
    """The message, or None for EOF and anything that is not a JSON object."""
    try:
        message = json.loads(data) if data else None
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def stamp(path: str) -> list[int] | None:
    """Which file this is: a reinstall (pip writes new files) changes it."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]


def kill_run(pid: int) -> None:
    """SIGKILL a run's group, and the child itself in case it has not reached setsid() yet."""
    if pid <= 1:
        return
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(pid, signal.SIGKILL)
