"""Parked confirmations on SQLite."""

from __future__ import annotations

from adapters.sql.record_rows import pending_from_row, pending_params
from adapters.sqlite.connection import Db, changes, fetch_all, fetch_one
from adapters.sqlite.enqueues import Enqueue, insert_job
from adapters.sqlite.port_base import SqliteAccess
from ports.jobs import NewJob
from ports.pending import CancelOutcome, PendingRequest, PendingStore

_PARK = """
    INSERT OR REPLACE INTO pending (id, chat_id, user_id, message_id, job_name, job_payload, job_max_attempts,
        job_available_at, job_key, job_owner_id, blob_key, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
_PENDING = """
    SELECT id, chat_id, user_id, message_id, job_name, job_payload, job_max_attempts,
        job_available_at, job_key, job_owner_id, blob_key, created_at
    FROM pending WHERE id = ?
"""
_ADOPT = """
    DELETE FROM pending WHERE id = ?
    RETURNING job_name, job_payload, job_max_attempts, job_available_at, job_key, job_owner_id, chat_id
"""
_EXPIRE = """
    DELETE FROM pending WHERE created_at < ?
    RETURNING id, chat_id, user_id, message_id, job_name, job_payload, job_max_attempts,
        job_available_at, job_key, job_owner_id, blob_key, created_at
"""
_PINNED = "SELECT DISTINCT blob_key FROM pending WHERE blob_key IS NOT NULL AND blob_key <> ''"


class SqlitePending(SqliteAccess, PendingStore):
    async def park(self, request: PendingRequest) -> None:
        params = pending_params(request)
        await self._write(lambda db: changes(db, _PARK, params))

    async def pending(self, pending_id: str) -> PendingRequest | None:
        row = await self._read(lambda db: fetch_one(db, _PENDING, (pending_id,)))
        return None if row is None else pending_from_row(row)

    async def adopt(self, pending_id: str, now: float) -> int | None:
        async def work(db: Db) -> int | None:
            taken = await fetch_one(db, _ADOPT, (pending_id,))
            if taken is None:
                return None
            name, payload, max_attempts, available_at, key, owner, chat = taken
            job = NewJob(name, {}, max_attempts, available_at, key, owner, requester=chat)
            return await insert_job(db, Enqueue(job, payload, now, None, self._fair))

        return await self._write(work)

    async def cancel(self, pending_id: str, user_id: int) -> CancelOutcome:
        async def work(db: Db) -> CancelOutcome:
            row = await fetch_one(db, "SELECT user_id FROM pending WHERE id = ?", (pending_id,))
            if row is None:
                return CancelOutcome.GONE
            if row[0] != user_id:
                return CancelOutcome.NOT_REQUESTER
            await db.execute("DELETE FROM pending WHERE id = ?", (pending_id,))
            return CancelOutcome.CANCELLED

        return await self._write(work)

    async def expire(self, created_before: float) -> list[PendingRequest]:
        rows = await self._write(lambda db: fetch_all(db, _EXPIRE, (created_before,)))
        return sorted((pending_from_row(row) for row in rows), key=lambda r: (r.created_at, r.id))

    async def pinned_keys(self) -> set[str]:
        rows = await self._read(lambda db: fetch_all(db, _PINNED))
        return {row[0] for row in rows}
