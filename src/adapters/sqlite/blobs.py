"""The blob index on SQLite."""

from __future__ import annotations

from adapters.sql.record_rows import blob_from_row, blob_params
from adapters.sqlite.connection import Db, changes, fetch_all, fetch_one
from adapters.sqlite.port_base import SqliteAccess
from ports.blobs import BlobIndex, BlobRecord

_BLOB = """
    SELECT key, file_name, size, duration, width, height, file_id, file_unique_id, created_at, last_used
    FROM blobs WHERE key = ?
"""
_ALL_BLOBS = """
    SELECT key, file_name, size, duration, width, height, file_id, file_unique_id, created_at, last_used
    FROM blobs ORDER BY key
"""
_PUT_BLOB = """
    INSERT OR REPLACE INTO blobs (key, file_name, size, duration, width, height, file_id,
        file_unique_id, created_at, last_used)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
_PINNED_BY_PENDING = "SELECT 1 FROM pending WHERE blob_key = ? LIMIT 1"
_SET_FILE_ID = "UPDATE blobs SET file_id = ?, file_unique_id = ?, last_used = ? WHERE key = ?"
_CLEAR_FILE_ID = "UPDATE blobs SET file_id = NULL, file_unique_id = NULL WHERE key = ?"


class SqliteBlobIndex(SqliteAccess, BlobIndex):
    async def blob(self, key: str) -> BlobRecord | None:
        async def work(db: Db) -> BlobRecord | None:
            row = await fetch_one(db, _BLOB, (key,))
            return None if row is None else blob_from_row(row)

        return await self._read(work)

    async def put_blob(self, record: BlobRecord) -> None:
        params = blob_params(record)
        await self._write(lambda db: changes(db, _PUT_BLOB, params))

    async def set_file_id(self, key: str, file_id: str, file_unique_id: str, now: float) -> None:
        await self._write(lambda db: changes(db, _SET_FILE_ID, (file_id, file_unique_id, now, key)))

    async def clear_file_id(self, key: str) -> None:
        await self._write(lambda db: changes(db, _CLEAR_FILE_ID, (key,)))

    async def touch_blob(self, key: str, now: float) -> None:
        await self._write(lambda db: changes(db, "UPDATE blobs SET last_used = ? WHERE key = ?", (now, key)))

    async def detach_bytes(self, key: str, file_name: str) -> bool:
        async def work(db: Db) -> bool:
            row = await fetch_one(db, "SELECT file_name, file_id FROM blobs WHERE key = ?", (key,))
            if row is None or row[0] != file_name:
                return False
            if await fetch_one(db, _PINNED_BY_PENDING, (key,)):
                return False
            if row[1] is None:
                await db.execute("DELETE FROM blobs WHERE key = ?", (key,))
            else:
                await db.execute("UPDATE blobs SET file_name = NULL, size = NULL WHERE key = ?", (key,))
            return True

        return await self._write(work)

    async def forget_blob(self, key: str) -> None:
        await self._write(lambda db: changes(db, "DELETE FROM blobs WHERE key = ?", (key,)))

    async def all_blobs(self) -> list[BlobRecord]:
        rows = await self._read(lambda db: fetch_all(db, _ALL_BLOBS))
        return [blob_from_row(row) for row in rows]
