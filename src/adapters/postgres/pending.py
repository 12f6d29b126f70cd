"""Parked confirmations on PostgreSQL: adopt and cancel race on one row, and exactly one wins."""

from __future__ import annotations

from adapters.postgres.database import PostgresAccess
from adapters.postgres.notices import WorkNotifier
from adapters.sql.record_rows import pending_from_row, pending_params
from ports.pending import CancelOutcome, PendingRequest, PendingStore

_PENDING_COLUMNS = """id, chat_id, user_id, message_id, job_name, job_payload, job_max_attempts,
    job_available_at, job_key, job_owner_id, blob_key, created_at"""
_PARK = """
    INSERT INTO pending (id, chat_id, user_id, message_id, job_name, job_payload, job_max_attempts,
        job_available_at, job_key, job_owner_id, blob_key, created_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
    ON CONFLICT (id) DO UPDATE SET (chat_id, user_id, message_id, job_name, job_payload,
        job_max_attempts, job_available_at, job_key, job_owner_id, blob_key, created_at) = (
        EXCLUDED.chat_id, EXCLUDED.user_id, EXCLUDED.message_id, EXCLUDED.job_name,
        EXCLUDED.job_payload, EXCLUDED.job_max_attempts, EXCLUDED.job_available_at, EXCLUDED.job_key,
        EXCLUDED.job_owner_id, EXCLUDED.blob_key, EXCLUDED.created_at)
"""
_PENDING = f"SELECT {_PENDING_COLUMNS} FROM pending WHERE id = $1"  # noqa: S608 - a constant column list
_ADOPT = """
    WITH taken AS (
        DELETE FROM pending WHERE id = $1
        RETURNING job_name, job_payload, job_max_attempts, job_available_at, job_key, job_owner_id, chat_id
    )
    INSERT INTO jobs (name, payload, max_attempts, available_at, key, owner_id, created_at, requester, turn)
    SELECT job_name, job_payload, job_max_attempts,
        CASE WHEN job_available_at = 0 THEN $2 ELSE job_available_at END, job_key, job_owner_id, $2,
        chat_id, vidrelay_turn(CASE WHEN $3 THEN chat_id END, false)
    FROM taken
    RETURNING id
"""
# The row is locked before its requester is compared, so a concurrent adopt either deleted it
# first (then this sees nothing: gone) or waits until this one is done.
_CANCEL = """
    WITH target AS (SELECT user_id FROM pending WHERE id = $1 FOR UPDATE),
    deleted AS (
        DELETE FROM pending WHERE id = $1 AND user_id = $2 AND EXISTS (SELECT 1 FROM target)
        RETURNING 1
    )
    SELECT (SELECT user_id FROM target), EXISTS (SELECT 1 FROM deleted)
"""
_EXPIRE = f"DELETE FROM pending WHERE created_at < $1 RETURNING {_PENDING_COLUMNS}"  # noqa: S608 - a constant column list
_PINNED = "SELECT DISTINCT blob_key FROM pending WHERE blob_key IS NOT NULL AND blob_key <> ''"


class PostgresPending(PostgresAccess, PendingStore):
    _notifier: WorkNotifier

    async def park(self, request: PendingRequest) -> None:
        await self._db.execute(_PARK, *pending_params(request))

    async def pending(self, pending_id: str) -> PendingRequest | None:
        row = await self._db.fetchrow(_PENDING, pending_id)
        return None if row is None else pending_from_row(tuple(row))

    async def adopt(self, pending_id: str, now: float) -> int | None:
        job_id = await self._db.fetchval(_ADOPT, pending_id, now, self._fair)
        if job_id is None:
            return None
        self._notifier.announce()
        return int(job_id)

    async def cancel(self, pending_id: str, user_id: int) -> CancelOutcome:
        row = await self._db.fetchrow(_CANCEL, pending_id, user_id)
        assert row is not None  # a SELECT without FROM yields its row
        requester, deleted = row
        if requester is None:
            return CancelOutcome.GONE
        return CancelOutcome.CANCELLED if deleted else CancelOutcome.NOT_REQUESTER

    async def expire(self, created_before: float) -> list[PendingRequest]:
        expired = [pending_from_row(tuple(row)) for row in await self._db.fetch(_EXPIRE, created_before)]
        return sorted(expired, key=lambda r: (r.created_at, r.id))

    async def pinned_keys(self) -> set[str]:
        return {row[0] for row in await self._db.fetch(_PINNED)}
