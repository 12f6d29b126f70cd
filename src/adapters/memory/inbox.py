"""The update inbox in memory (nothing survives the process: development and tests)."""

from __future__ import annotations

from collections.abc import Sequence

from adapters.memory.tables import InboxRow, MemoryTablesUser
from ports.inbox import KeptUpdate, RawUpdate, UpdateInbox


class MemoryInbox(MemoryTablesUser, UpdateInbox):
    async def keep_updates(self, updates: Sequence[RawUpdate], now: float) -> list[KeptUpdate]:
        inbox, new = self._tables.inbox, []
        for update in updates:
            if update.update_id not in inbox:
                inbox[update.update_id] = InboxRow(update, now)
                new.append(KeptUpdate(update, now))
        return new

    async def waiting_updates(self) -> list[KeptUpdate]:
        rows = sorted(self._tables.inbox.items(), key=lambda item: item[0])
        return [KeptUpdate(row.update, row.received_at) for _, row in rows if row.handled_at is None]

    async def update_handled(self, update_id: int, now: float) -> None:
        row = self._tables.inbox.get(update_id)
        if row is not None and row.handled_at is None:
            row.handled_at = now

    async def sweep_inbox(self, handled_before: float) -> int:
        inbox = self._tables.inbox
        old = [
            i for i, row in inbox.items() if row.handled_at is not None and row.handled_at < handled_before
        ]
        for update_id in old:
            del inbox[update_id]
        return len(old)
