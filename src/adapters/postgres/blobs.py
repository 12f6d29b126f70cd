"""The blob index on PostgreSQL: what a video is (file_id, size of frame, length) is shared by
every worker; its bytes are a cache on each worker's own disk.

`blobs` holds the shared row, `blob_bytes` one row per worker (node) that has the bytes. Each
store instance serves the port as its node sees it: a record's file_name and size are this
node's bytes, or None. A row whose bytes only another node has, and that Telegram does not hold
yet, is that node's business: this node does not see it, so its sweep can neither forget the
row nor count it as lost, and a fetch here downloads for itself. Rows no node has bytes of are
seen by all, so whoever sweeps first forgets them.
"""

from __future__ import annotations

from adapters.postgres.database import PostgresAccess
from ports.blobs import BlobIndex, BlobRecord

_SEEN = """
    SELECT b.key, x.file_name, x.size, b.duration, b.width, b.height, b.file_id, b.file_unique_id,
        coalesce(x.created_at, b.created_at), coalesce(x.last_used, b.last_used)
    FROM blobs AS b LEFT JOIN blob_bytes AS x ON x.key = b.key AND x.node = $1
    WHERE (b.file_id IS NOT NULL OR x.key IS NOT NULL
        OR NOT EXISTS (SELECT 1 FROM blob_bytes AS o WHERE o.key = b.key))
"""
_BLOB = _SEEN + " AND b.key = $2"
_ALL_BLOBS = _SEEN + " ORDER BY b.key"
_PUT_SHARED = """
    INSERT INTO blobs (key, duration, width, height, file_id, file_unique_id, created_at, last_used)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
    ON CONFLICT (key) DO UPDATE SET (duration, width, height, file_id, file_unique_id, created_at,
        last_used) = (EXCLUDED.duration, EXCLUDED.width, EXCLUDED.height, EXCLUDED.file_id,
        EXCLUDED.file_unique_id, EXCLUDED.created_at, EXCLUDED.last_used)
"""
_PUT_BYTES = """
    INSERT INTO blob_bytes (node, key, file_name, size, created_at, last_used)
    VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (node, key) DO UPDATE SET (file_name, size, created_at, last_used) = (
        EXCLUDED.file_name, EXCLUDED.size, EXCLUDED.created_at, EXCLUDED.last_used)
"""
_DROP_BYTES = "DELETE FROM blob_bytes WHERE node = $1 AND key = $2"
_SET_FILE_ID = """
    WITH shared AS (
        UPDATE blobs SET file_id = $2, file_unique_id = $3, last_used = $4 WHERE key = $1
    )
    UPDATE blob_bytes SET last_used = $4 WHERE key = $1 AND node = $5
"""
_TOUCH = """
    WITH shared AS (UPDATE blobs SET last_used = $2 WHERE key = $1)
    UPDATE blob_bytes SET last_used = $2 WHERE key = $1 AND node = $3
"""
_CLEAR_FILE_ID = "UPDATE blobs SET file_id = NULL, file_unique_id = NULL WHERE key = $1"
# The compare-and-set that decides who unlinks: the shared row is locked first, so two nodes
# letting the last bytes go at once agree on whether the row itself goes.
_LOCK_SHARED = "SELECT file_id FROM blobs WHERE key = $1 FOR UPDATE"
_OWN_BYTES = "SELECT file_name FROM blob_bytes WHERE node = $1 AND key = $2"
_PINNED = "SELECT EXISTS (SELECT 1 FROM pending WHERE blob_key = $1)"
_DROP_SHARED_IF_UNUSED = """
    DELETE FROM blobs WHERE key = $1 AND file_id IS NULL
        AND NOT EXISTS (SELECT 1 FROM blob_bytes WHERE key = $1)
"""
_FORGET_SHARED_IF_UNUSED = """
    DELETE FROM blobs WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM blob_bytes WHERE key = $1)
"""


class PostgresBlobIndex(PostgresAccess, BlobIndex):
    async def blob(self, key: str) -> BlobRecord | None:
        row = await self._db.fetchrow(_BLOB, self._node, key)
        return None if row is None else BlobRecord(*row)

    async def put_blob(self, record: BlobRecord) -> None:
        r = record
        async with self._db.transaction() as c:
            shared = (r.key, r.duration, r.width, r.height, r.file_id, r.file_unique_id)
            await c.execute(_PUT_SHARED, *shared, r.created_at, r.last_used)
            if r.file_name is None:
                await c.execute(_DROP_BYTES, self._node, r.key)
            else:
                await c.execute(_PUT_BYTES, self._node, r.key, r.file_name, r.size, r.created_at, r.last_used)

    async def set_file_id(self, key: str, file_id: str, file_unique_id: str, now: float) -> None:
        await self._db.execute(_SET_FILE_ID, key, file_id, file_unique_id, now, self._node)

    async def clear_file_id(self, key: str) -> None:
        await self._db.execute(_CLEAR_FILE_ID, key)

    async def touch_blob(self, key: str, now: float) -> None:
        await self._db.execute(_TOUCH, key, now, self._node)

    async def detach_bytes(self, key: str, file_name: str) -> bool:
        async with self._db.transaction() as c:
            locked = await c.fetch(_LOCK_SHARED, key)
            if not locked or await c.fetchval(_OWN_BYTES, self._node, key) != file_name:
                return False
            if await c.fetchval(_PINNED, key):
                return False
            await c.execute(_DROP_BYTES, self._node, key)
            await c.execute(_DROP_SHARED_IF_UNUSED, key)
            return True

    async def forget_blob(self, key: str) -> None:
        async with self._db.transaction() as c:
            await c.execute(_LOCK_SHARED, key)
            await c.execute(_DROP_BYTES, self._node, key)
            await c.execute(_FORGET_SHARED_IF_UNUSED, key)

    async def all_blobs(self) -> list[BlobRecord]:
        return [BlobRecord(*row) for row in await self._db.fetch(_ALL_BLOBS, self._node)]
