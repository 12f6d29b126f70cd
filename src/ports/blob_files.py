"""The blob files: the bytes on disk, named by the blob index (ports.blobs)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True, slots=True)
class BlobFile:
    name: str
    size: int
    modified_at: float


class BlobFiles(Protocol):
    """The bytes on disk: `<data>/blobs/<name>` plus per-job staging folders. A folder that cannot
    be read or written raises BlobFilesError."""

    def path_of(self, name: str) -> Path: ...

    async def new_staging(self, label: str) -> Path: ...

    async def remove_staging(self, folder: Path) -> None: ...

    async def clear_staging(self) -> int:
        """Boot: staging folders of a dead process are garbage."""
        ...

    async def move_in(self, staged: Path, name: str) -> Path:
        """Rename a finished file into the blob folder (atomic on one filesystem)."""
        ...

    async def size_of(self, name: str) -> int | None:
        """Bytes on disk, or None when the file does not exist."""
        ...

    async def unlink(self, name: str) -> bool:
        """Remove the file; False when it was already gone."""
        ...

    async def listing(self) -> list[BlobFile]: ...
