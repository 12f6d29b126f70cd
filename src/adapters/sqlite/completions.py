"""Completions, a batch's at once: one DELETE ... RETURNING for every finished job's row."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from adapters.sql.json_text import dump_json
from adapters.sqlite.connection import Db
from adapters.sqlite.kinds import Sent, sent
from ports.jobs import Lease

# A finishing write acts only while its claim holds the row: same token, still held.
_COMPLETE: Final = """
    DELETE FROM jobs WHERE claimed_by IS NOT NULL AND (id, token) IN (
        SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?)
    )
    RETURNING id, token
"""


class Completions:
    rank = 1

    def send(self, db: Db, leases: Sequence[Lease]) -> Sent:
        wanted = dump_json([[lease.job_id, lease.token] for lease in leases])

        async def answer(ran: list[Any]) -> list[bool]:
            """Whether each lease still held its row (the first of a batch's requests naming it)."""
            deleted = {Lease(i, t) for i, t in ran[0]}
            landed = []
            for lease in leases:
                landed.append(lease in deleted)
                deleted.discard(lease)
            return landed

        return Sent(answer, [sent(db.execute_fetchall(_COMPLETE, (wanted,)))])


COMPLETIONS = Completions()
