"""Parked confirmations in memory."""

from __future__ import annotations

import copy
from dataclasses import replace

from adapters.memory.tables import MemoryTablesUser
from ports.pending import CancelOutcome, PendingRequest, PendingStore


class MemoryPending(MemoryTablesUser, PendingStore):
    async def park(self, request: PendingRequest) -> None:
        self._tables.pending[request.id] = copy.deepcopy(request)

    async def pending(self, pending_id: str) -> PendingRequest | None:
        request = self._tables.pending.get(pending_id)
        return copy.deepcopy(request) if request else None

    async def adopt(self, pending_id: str, now: float) -> int | None:
        request = self._tables.pending.pop(pending_id, None)
        if request is None:
            return None
        # Like the SQL stores: the parked job takes its turn as its chat's (ports.queue).
        return self._tables.insert_job(replace(request.job, requester=request.chat_id), now)

    async def cancel(self, pending_id: str, user_id: int) -> CancelOutcome:
        request = self._tables.pending.get(pending_id)
        if request is None:
            return CancelOutcome.GONE
        if request.user_id != user_id:
            return CancelOutcome.NOT_REQUESTER
        del self._tables.pending[pending_id]
        return CancelOutcome.CANCELLED

    async def expire(self, created_before: float) -> list[PendingRequest]:
        old = [r for r in self._tables.pending.values() if r.created_at < created_before]
        for request in old:
            del self._tables.pending[request.id]
        return old

    async def pinned_keys(self) -> set[str]:
        return {r.blob_key for r in self._tables.pending.values() if r.blob_key}
