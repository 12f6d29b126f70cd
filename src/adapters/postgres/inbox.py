"""The update inbox on PostgreSQL: a batch is one statement, so it lands whole or not at all.

Only the ingest (role all or ingest) keeps and handles updates; the table is in the shared
database so that an ingest restarted on another machine replays what its predecessor kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from adapters.postgres.database import PostgresAccess
from ports.inbox import KeptUpdate, RawUpdate, UpdateInbox

_KEEP = """
    INSERT INTO inbox (update_id, lane, body, received_at)
    SELECT update_id, lane, body, $4 FROM unnest($1::bigint[], $2::text[], $3::text[])
        AS batch (update_id, lane, body)
    ON CONFLICT DO NOTHING
    RETURNING update_id
"""
_WAITING = "SELECT update_id, lane, body, received_at FROM inbox WHERE handled_at IS NULL ORDER BY update_id"
_HANDLED = "UPDATE inbox SET handled_at = $2 WHERE update_id = $1 AND handled_at IS NULL"
_SWEEP = "DELETE FROM inbox WHERE handled_at < $1"


class PostgresInbox(PostgresAccess, UpdateInbox):
    async def keep_updates(self, updates: Sequence[RawUpdate], now: float) -> list[KeptUpdate]:
        if not updates:
            return []
        rows = await self._db.fetch(
            _KEEP,
            [u.update_id for u in updates],
            [u.lane for u in updates],
            [u.body for u in updates],
            now,
        )
        new = {row[0] for row in rows}
        return [KeptUpdate(u, now) for u in updates if u.update_id in new]

    async def waiting_updates(self) -> list[KeptUpdate]:
        rows = await self._db.fetch(_WAITING)
        return [KeptUpdate(RawUpdate(r[0], r[1], r[2]), r[3]) for r in rows]

    async def update_handled(self, update_id: int, now: float) -> None:
        await self._db.execute(_HANDLED, update_id, now)

    async def sweep_inbox(self, handled_before: float) -> int:
        return await self._db.execute(_SWEEP, handled_before)
