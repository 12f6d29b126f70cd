"""One process at a time on a data folder: an exclusive flock on `<data>/vidrelay.lock`.

The kernel drops a flock when the process that took it ends, however it ends (SIGKILL, OOM), so
the lock is never stale and nothing ever deletes the file. The holder writes who it is into the
file, for the line the refused one prints. The descriptor is close-on-exec: yt-dlp and ffmpeg
never inherit it, so a child outliving a killed bot cannot keep its folder locked.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from collections.abc import Iterator
from pathlib import Path

LOCK_FILE = "vidrelay.lock"
_HOLDER_BYTES = 200


class FolderInUse(Exception):
    """Another process holds the data folder (one line, naming the holder)."""


@contextlib.contextmanager
def holding_folder(data_dir: Path, holder: str) -> Iterator[None]:
    """Hold `data_dir` while the block runs, as `holder` ("vidrelay run"); FolderInUse if taken."""
    data_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(data_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise FolderInUse(f"{data_dir} is in use by {_holder(fd)}") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{holder} (pid {os.getpid()} on {socket.gethostname()})\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def _holder(fd: int) -> str:
    # The holder may not have written its name yet: it took the lock an instant ago.
    written = os.pread(fd, _HOLDER_BYTES, 0).decode(errors="replace").strip()
    return written or "another vidrelay process"
