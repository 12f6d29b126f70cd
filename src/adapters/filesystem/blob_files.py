"""The blob folder on the local disk: `<data>/blobs/<name>` and `<data>/staging/<label>-<random>/`.

Staging and blobs live under one data folder, so moving a finished download in is one
`os.replace` on one filesystem: a reader sees no file or the whole file, never a partial one.
Every name is checked before it touches a path, so a hostile name never leaves its folder.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

from ports.blob_files import BlobFile, BlobFiles
from ports.errors import BlobFilesError

_LABEL_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_MAX_NAME_BYTES = 255
_P = ParamSpec("_P")
_T = TypeVar("_T")


def _checked_name(name: str) -> str:
    if (
        not name
        or name in {".", ".."}
        or "/" in name
        or "\\" in name
        or "\0" in name
        or len(name.encode("utf-8", "surrogatepass")) > _MAX_NAME_BYTES
    ):
        raise BlobFilesError(f"not a blob file name: {name!r}")
    return name


def _safe_label(label: str) -> str:
    return _LABEL_UNSAFE.sub("", label)[:32] or "job"


class LocalBlobFiles(BlobFiles):
    def __init__(self, data_dir: Path | str) -> None:
        data = Path(data_dir)
        self._blobs = data / "blobs"
        self._staging = data / "staging"

    @property
    def blob_dir(self) -> Path:
        return self._blobs

    @property
    def staging_dir(self) -> Path:
        return self._staging

    def path_of(self, name: str) -> Path:
        return self._blobs / _checked_name(name)

    async def new_staging(self, label: str) -> Path:
        return await _off_loop(self._new_staging, _safe_label(label))

    def _new_staging(self, label: str) -> Path:
        self._staging.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f"{label}-", dir=self._staging))

    async def remove_staging(self, folder: Path) -> None:
        await _off_loop(self._remove_staging, folder)

    def _remove_staging(self, folder: Path) -> None:
        folder = Path(os.path.abspath(folder))
        if folder.parent != Path(os.path.abspath(self._staging)) or folder.name in {"", ".", ".."}:
            raise BlobFilesError(f"not a staging folder: {folder}")
        _remove_tree(folder)

    async def clear_staging(self) -> int:
        return await _off_loop(self._clear_staging)

    def _clear_staging(self) -> int:
        try:
            entries = list(self._staging.iterdir())
        except FileNotFoundError:
            return 0
        for entry in entries:
            _remove_tree(entry)
        return len(entries)

    async def move_in(self, staged: Path, name: str) -> Path:
        target = self.path_of(name)
        return await _off_loop(self._move_in, staged, target)

    def _move_in(self, staged: Path, target: Path) -> Path:
        if self._staging.resolve() not in staged.resolve().parents:
            raise BlobFilesError(f"not a staged file: {staged}")
        if staged.is_symlink() or not staged.is_file():
            raise BlobFilesError(f"not a regular staged file: {staged}")
        self._blobs.mkdir(parents=True, exist_ok=True)
        # The sweep's orphan grace is measured from mtime; a download may carry the server's
        # Last-Modified time, so the file's age must start when it enters the folder.
        now = time.time()
        os.utime(staged, (now, now))
        os.replace(staged, target)
        return target

    async def size_of(self, name: str) -> int | None:
        path = self.path_of(name)
        return await _off_loop(_size_of, path)

    async def unlink(self, name: str) -> bool:
        path = self.path_of(name)
        return await _off_loop(_unlink, path)

    async def listing(self) -> list[BlobFile]:
        return await _off_loop(self._listing)

    def _listing(self) -> list[BlobFile]:
        try:
            entries = list(os.scandir(self._blobs))
        except FileNotFoundError:
            return []
        files = []
        for entry in entries:
            try:
                if entry.is_file(follow_symlinks=False):
                    stat = entry.stat(follow_symlinks=False)
                    files.append(BlobFile(entry.name, stat.st_size, stat.st_mtime))
            except FileNotFoundError:
                continue  # removed between the scan and the stat
        return files


async def _off_loop(work: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """Blocking file work runs in a thread; an OSError becomes the port's error."""
    try:
        return await asyncio.to_thread(work, *args, **kwargs)
    except OSError as e:
        raise BlobFilesError(f"blob folder: {e}") from e


def _size_of(path: Path) -> int | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_size if path.is_file() else None


def _unlink(path: Path) -> bool:
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True


def _remove_tree(path: Path) -> None:
    if path.is_symlink() or not path.is_dir():
        path.unlink(missing_ok=True)
        return
    try:
        shutil.rmtree(path)
    except FileNotFoundError:
        return
