"""Whether the data folder can be made and written, asked before a command writes in it.

The answer is one line naming the path and the reason (a root-owned bind mount for the image's
uid 10001, a path under a regular file, a read-only mount), for the CLI to print with exit 2;
without it the first write deep inside the store or the folder lock ended the start in a
traceback. The folder is probed by writing in it, not by reading its mode bits: root passes mode
bits but not a read-only mount, and an ACL or a user namespace can say yes where the bits say no.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from adapters.filesystem.folder_lock import LOCK_FILE

SETTING = "VIDRELAY_DATA_DIR"
_PROBE_PREFIX = ".vidrelay-write-check-"
_SQLITE_FILES = ("vidrelay.db", "vidrelay.db-wal", "vidrelay.db-shm")
_WRITTEN_AT_START = (*_SQLITE_FILES, LOCK_FILE)
"""What a start opens for writing in the folder: a copy left by another user (a run as root)
fails like the folder itself. Other entries are not looked at: a mounted filesystem's own
root-owned `lost+found` is no business of ours."""


def data_folder_problem(folder: Path, *, create: bool = True) -> str | None:
    """Why `folder` cannot serve as the data folder, in one line, or None.

    With `create` the folder is made if missing (as the command would make it anyway); without,
    a folder that could be made is no problem here (the command says what it misses).
    """
    if not folder.exists() and not folder.is_symlink():
        if (blocker := _first_non_folder(folder)) is not None:
            return f"data folder {folder} cannot be created: {blocker} is {_kind(blocker)}, not a folder"
        if not create:
            return None
        if (problem := _cannot_create(folder)) is not None:
            return problem
    if not folder.is_dir():
        return f"data folder {folder} is not a folder ({_kind(folder)}): set {SETTING} to a folder"
    if (problem := _cannot_write(folder)) is not None:
        return problem
    for name in _WRITTEN_AT_START:
        entry = folder / name
        if entry.exists() and not os.access(entry, os.R_OK | os.W_OK):
            return f"{entry} in the data folder is not writable: {_ownership(entry)}"
    return None


def _cannot_create(folder: Path) -> str | None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        where = _first_existing(folder)
        return f"data folder {folder} cannot be created in {where}: {_reason(error, where)}"
    return None


def _cannot_write(folder: Path) -> str | None:
    try:
        fd, probe = tempfile.mkstemp(prefix=_PROBE_PREFIX, dir=folder)
    except OSError as error:
        return f"data folder {folder} is not writable: {_reason(error, folder)}"
    os.close(fd)
    os.unlink(probe)
    return None


def _reason(error: OSError, path: Path) -> str:
    if error.errno in (errno.EACCES, errno.EPERM):
        return _ownership(path)
    return (error.strerror or str(error)).lower()


def _ownership(path: Path) -> str:
    try:
        info = path.stat()
    except OSError:
        return f"permission denied for uid {os.geteuid()}"
    return (
        f"permission denied for uid {os.geteuid()} (owned by uid {info.st_uid}, mode "
        f"{info.st_mode & 0o7777:04o}): make it writable by uid {os.geteuid()} (chown) or set {SETTING}"
    )


def _first_non_folder(folder: Path) -> Path | None:
    for ancestor in reversed(folder.parents):
        if ancestor.exists() and not ancestor.is_dir():
            return ancestor
    return None


def _first_existing(folder: Path) -> Path:
    return next(ancestor for ancestor in folder.parents if ancestor.exists())


def _kind(path: Path) -> str:
    if path.is_symlink() and not path.exists():
        return "a dangling symlink"
    return "a file" if path.is_file() else "not a folder"
