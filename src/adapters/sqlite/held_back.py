"""A held-back job let go early, on SQLite."""

from __future__ import annotations

from adapters.sql.json_text import dump_json
from adapters.sqlite.connection import changes
from adapters.sqlite.port_base import SqliteAccess
from ports.held_back import HeldBackJobs
from ports.json import Payload

_RELEASE = "UPDATE jobs SET payload = ?, available_at = ? WHERE id = ? AND token = 0 AND claimed_by IS NULL"


class SqliteHeldBackJobs(SqliteAccess, HeldBackJobs):
    async def release_held_back(self, job_id: int, payload: Payload, now: float) -> bool:
        text = dump_json(payload)
        changed = await self._write(lambda db: changes(db, _RELEASE, (text, now, job_id)))
        return changed == 1
