"""The update inbox on SQLite: a batch of updates is one statement of one group commit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adapters.sqlite.connection import changes, fetch_all
from adapters.sqlite.port_base import SqliteAccess
from ports.inbox import KeptUpdate, RawUpdate, UpdateInbox

_KEEP = """
    INSERT INTO inbox (update_id, lane, body, received_at) VALUES {rows}
    ON CONFLICT DO NOTHING
    RETURNING update_id
"""
_WAITING = "SELECT update_id, lane, body, received_at FROM inbox WHERE handled_at IS NULL ORDER BY update_id"
_HANDLED = "UPDATE inbox SET handled_at = ? WHERE update_id = ? AND handled_at IS NULL"
_SWEEP = "DELETE FROM inbox WHERE handled_at < ?"


async def _nothing() -> list[Any]:
    return []


class SqliteInbox(SqliteAccess, UpdateInbox):
    async def keep_updates(self, updates: Sequence[RawUpdate], now: float) -> list[KeptUpdate]:
        sql = _KEEP.format(rows=", ".join(["(?, ?, ?, ?)"] * len(updates)))
        params = [v for u in updates for v in (u.update_id, u.lane, u.body, now)]
        rows = await self._write(lambda db: fetch_all(db, sql, params) if updates else _nothing())
        new = {row[0] for row in rows}
        kept = []
        for update in updates:  # the first of several with one id is the one kept
            if update.update_id in new:
                kept.append(KeptUpdate(update, now))
                new.discard(update.update_id)
        return kept

    async def waiting_updates(self) -> list[KeptUpdate]:
        rows = await self._read(lambda db: fetch_all(db, _WAITING))
        return [KeptUpdate(RawUpdate(r[0], r[1], r[2]), r[3]) for r in rows]

    async def update_handled(self, update_id: int, now: float) -> None:
        await self._write(lambda db: changes(db, _HANDLED, (now, update_id)))

    async def sweep_inbox(self, handled_before: float) -> int:
        return await self._write(lambda db: changes(db, _SWEEP, (handled_before,)))
