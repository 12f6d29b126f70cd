"""The blob index: one row per video the bot holds (its bytes' name, its Telegram file_id).

A blob is "had" when its row has a file_id or its bytes exist. Bytes leave through
`detach_bytes`, a compare-and-set that only one caller can win, so two concurrent releases
never both unlink.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class BlobRecord:
    key: str
    file_name: str | None
    """The bytes' name in the blob folder; None once they are gone."""
    size: int | None
    duration: float | None
    width: int | None
    height: int | None
    file_id: str | None
    file_unique_id: str | None
    created_at: float
    last_used: float


class BlobIndex(Protocol):
    async def blob(self, key: str) -> BlobRecord | None: ...

    async def put_blob(self, record: BlobRecord) -> None:
        """Insert or replace the row for `record.key`."""
        ...

    async def set_file_id(self, key: str, file_id: str, file_unique_id: str, now: float) -> None: ...

    async def clear_file_id(self, key: str) -> None:
        """Telegram refused the file_id: forget it so the video is fetched again."""
        ...

    async def touch_blob(self, key: str, now: float) -> None: ...

    async def detach_bytes(self, key: str, file_name: str) -> bool:
        """Atomically: if the row still points at `file_name` and no pending request pins the key,
        forget the bytes (delete the row when it has no file_id). True for the one caller that
        should unlink the file."""
        ...

    async def forget_blob(self, key: str) -> None:
        """Delete the row whatever it holds (its bytes vanished and it has no file_id)."""
        ...

    async def all_blobs(self) -> list[BlobRecord]: ...
