"""The update inbox on SQLite: a batch is one savepoint of one group commit."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from adapters.sqlite.port_base import SqliteAccess
from ports.inbox import KeptUpdate, RawUpdate, UpdateInbox

_KEEP = "INSERT INTO inbox (update_id, lane, body, received_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING"
_WAITING = "SELECT update_id, lane, body, received_at FROM inbox WHERE handled_at IS NULL ORDER BY update_id"
_HANDLED = "UPDATE inbox SET handled_at = ? WHERE update_id = ? AND handled_at IS NULL"
_SWEEP = "DELETE FROM inbox WHERE handled_at < ?"


class SqliteInbox(SqliteAccess, UpdateInbox):
    async def keep_updates(self, updates: Sequence[RawUpdate], now: float) -> list[KeptUpdate]:
        def work(c: sqlite3.Connection) -> list[KeptUpdate]:
            return [
                KeptUpdate(u, now)
                for u in updates
                if c.execute(_KEEP, (u.update_id, u.lane, u.body, now)).rowcount
            ]

        return await self._write(work)

    async def waiting_updates(self) -> list[KeptUpdate]:
        def work(c: sqlite3.Connection) -> list[KeptUpdate]:
            rows = c.execute(_WAITING).fetchall()
            return [KeptUpdate(RawUpdate(r[0], r[1], r[2]), r[3]) for r in rows]

        return await self._read(work)

    async def update_handled(self, update_id: int, now: float) -> None:
        await self._write(lambda c: c.execute(_HANDLED, (now, update_id)))

    async def sweep_inbox(self, handled_before: float) -> int:
        return await self._write(lambda c: c.execute(_SWEEP, (handled_before,)).rowcount)
