"""Parked confirmations on SQLite."""

from __future__ import annotations

import sqlite3

from adapters.sql.record_rows import pending_from_row, pending_params
from adapters.sqlite.jobs import insert_job
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
        await self._write(lambda c: c.execute(_PARK, params))

    async def pending(self, pending_id: str) -> PendingRequest | None:
        def work(c: sqlite3.Connection) -> PendingRequest | None:
            row = c.execute(_PENDING, (pending_id,)).fetchone()
            return None if row is None else pending_from_row(row)

        return await self._read(work)

    async def adopt(self, pending_id: str, now: float) -> int | None:
        def work(c: sqlite3.Connection) -> int | None:
            taken = c.execute(_ADOPT, (pending_id,)).fetchall()
            if not taken:
                return None
            name, payload, max_attempts, available_at, key, owner, chat = taken[0]
            job = NewJob(name, {}, max_attempts, available_at, key, owner, requester=chat)
            return insert_job(c, job, payload, now, fair=self._fair)

        return await self._write(work)

    async def cancel(self, pending_id: str, user_id: int) -> CancelOutcome:
        def work(c: sqlite3.Connection) -> CancelOutcome:
            row = c.execute("SELECT user_id FROM pending WHERE id = ?", (pending_id,)).fetchone()
            if row is None:
                return CancelOutcome.GONE
            if row[0] != user_id:
                return CancelOutcome.NOT_REQUESTER
            c.execute("DELETE FROM pending WHERE id = ?", (pending_id,))
            return CancelOutcome.CANCELLED

        return await self._write(work)

    async def expire(self, created_before: float) -> list[PendingRequest]:
        def work(c: sqlite3.Connection) -> list[PendingRequest]:
            expired = [pending_from_row(row) for row in c.execute(_EXPIRE, (created_before,))]
            return sorted(expired, key=lambda r: (r.created_at, r.id))

        return await self._write(work)

    async def pinned_keys(self) -> set[str]:
        return await self._read(lambda c: {row[0] for row in c.execute(_PINNED)})
