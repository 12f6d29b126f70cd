"""One `vidrelay run` per data folder: an exclusive flock on `<data>/vidrelay.lock`.

The kernel lets go of the lock when the process ends, however it ends (a SIGKILL, an OOM kill),
so a stale lock file never blocks the next start; the pid written into it is only for the
message a second instance prints.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from dataclasses import dataclass
from pathlib import Path

from returns.result import Failure, Result, Success

LOCK_NAME = "vidrelay.lock"


@dataclass(frozen=True, slots=True)
class HeldElsewhere:
    pid: int | None
    """The holder's pid as it wrote it; None if it had not written it yet."""


class InstanceLock:
    def __init__(self, descriptor: int) -> None:
        self._descriptor = descriptor

    def release(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._descriptor)


def hold_instance_lock(data_dir: Path) -> Result[InstanceLock, HeldElsewhere]:
    """Take the data folder's lock for this process, or say who holds it."""
    data_dir.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(data_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _pid_in(descriptor)
        os.close(descriptor)
        return Failure(HeldElsewhere(holder))
    except BaseException:
        os.close(descriptor)
        raise
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, f"{os.getpid()}\n".encode(), 0)
    return Success(InstanceLock(descriptor))


def _pid_in(descriptor: int) -> int | None:
    text = os.pread(descriptor, 32, 0).decode(errors="replace").strip()
    return int(text) if text.isdigit() else None
