"""The blob index in memory."""

from __future__ import annotations

from dataclasses import replace

from adapters.memory.tables import MemoryTablesUser
from ports.blobs import BlobIndex, BlobRecord


class MemoryBlobIndex(MemoryTablesUser, BlobIndex):
    async def blob(self, key: str) -> BlobRecord | None:
        return self._tables.blobs.get(key)

    async def put_blob(self, record: BlobRecord) -> None:
        self._tables.blobs[record.key] = record

    async def set_file_id(self, key: str, file_id: str, file_unique_id: str, now: float) -> None:
        self._update(key, file_id=file_id, file_unique_id=file_unique_id, last_used=now)

    async def clear_file_id(self, key: str) -> None:
        self._update(key, file_id=None, file_unique_id=None)

    async def touch_blob(self, key: str, now: float) -> None:
        self._update(key, last_used=now)

    def _update(self, key: str, **changes: object) -> None:
        record = self._tables.blobs.get(key)
        if record is not None:
            self._tables.blobs[key] = replace(record, **changes)  # type: ignore[arg-type]

    async def detach_bytes(self, key: str, file_name: str) -> bool:
        blobs = self._tables.blobs
        record = blobs.get(key)
        pinned = any(r.blob_key == key for r in self._tables.pending.values())
        if record is None or record.file_name != file_name or pinned:
            return False
        if record.file_id is None:
            del blobs[key]
        else:
            blobs[key] = replace(record, file_name=None, size=None)
        return True

    async def forget_blob(self, key: str) -> None:
        self._tables.blobs.pop(key, None)

    async def all_blobs(self) -> list[BlobRecord]:
        return list(self._tables.blobs.values())
