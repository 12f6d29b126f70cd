"""A held-back job let go early, on PostgreSQL: idle workers elsewhere hear that it is due."""

from __future__ import annotations

from adapters.postgres.database import PostgresAccess
from adapters.postgres.notices import WorkNotifier
from adapters.sql.json_text import dump_json
from ports.held_back import HeldBackJobs
from ports.json import Payload

_RELEASE = (
    "UPDATE jobs SET payload = $1, available_at = $2 WHERE id = $3 AND token = 0 AND claimed_by IS NULL"
)


class PostgresHeldBackJobs(PostgresAccess, HeldBackJobs):
    _notifier: WorkNotifier

    async def release_held_back(self, job_id: int, payload: Payload, now: float) -> bool:
        changed = await self._db.execute(_RELEASE, dump_json(payload), now, job_id)
        if changed:
            self._notifier.announce()
        return changed == 1
