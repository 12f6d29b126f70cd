"""How each yt-dlp release fared, and the releases rolled back, on PostgreSQL: one record for
every process, so a release one of them rolled back is one they all leave."""

from __future__ import annotations

from adapters.postgres.database import PostgresAccess
from adapters.postgres.notices import WorkNotifier
from ports.ytdlp_record import Rollback, Tally, YtDlpRecord

_COUNT = """
    INSERT INTO ytdlp_tallies (extractor, version, successes, failures) VALUES ($1, $2, $3, $4)
    ON CONFLICT (extractor, version) DO UPDATE SET
        successes = ytdlp_tallies.successes + EXCLUDED.successes,
        failures = ytdlp_tallies.failures + EXCLUDED.failures
"""
_END_ROW = """
    DELETE FROM ytdlp_failed_links WHERE extractor = $1 AND version = $2
    AND NOT EXISTS (SELECT 1 FROM ytdlp_rollbacks WHERE version = $2)
"""
_ADD_LINK = """
    INSERT INTO ytdlp_failed_links (extractor, version, url, failed_at) VALUES ($1, $2, $3, $4)
    ON CONFLICT DO NOTHING
"""
_IN_A_ROW = "SELECT count(*) FROM ytdlp_failed_links WHERE extractor = $1 AND version = $2"
_TALLY = "SELECT successes, failures FROM ytdlp_tallies WHERE extractor = $1 AND version = $2"
_ADD_ROLLBACK = """
    INSERT INTO ytdlp_rollbacks (version, extractor, to_version, at) VALUES ($1, $2, $3, $4)
    ON CONFLICT DO NOTHING
"""
_ROLLBACKS = "SELECT version, extractor, to_version, at FROM ytdlp_rollbacks ORDER BY at, version"
# Locked: two processes requeueing at once take turns, and the second finds the links done.
_OPEN_LINKS = """
    SELECT l.extractor, l.version, l.url, l.failed_at FROM ytdlp_failed_links AS l
    JOIN ytdlp_rollbacks AS r ON r.version = l.version
    WHERE NOT l.requeued AND r.at >= $1
    ORDER BY l.extractor, l.version, l.url
    FOR UPDATE OF l
"""
_DEAD_OF_LINK = """
    WITH moved AS (
        DELETE FROM failed_jobs WHERE payload::jsonb ->> 'url' = $1 AND failed_at >= $2
        RETURNING id, name, payload, max_attempts, key, owner_id
    )
    INSERT INTO jobs (name, payload, max_attempts, available_at, key, owner_id, created_at, turn)
    SELECT name, payload, max_attempts, $3, key, owner_id, $3, vidrelay_turn(NULL, false)
    FROM moved ORDER BY moved.id
    RETURNING id
"""
_DUE_NOW = """
    UPDATE jobs SET available_at = $1
    WHERE claimed_by IS NULL AND attempts > 0 AND available_at > $1 AND payload::jsonb ->> 'url' = $2
    RETURNING id
"""
_REQUEUED = "UPDATE ytdlp_failed_links SET requeued = true WHERE extractor = $1 AND version = $2 AND url = $3"


class PostgresYtDlpRecord(PostgresAccess, YtDlpRecord):
    _notifier: WorkNotifier

    async def record_success(self, extractor: str, version: str) -> None:
        async with self._db.transaction() as c:
            await c.execute(_COUNT, extractor, version, 1, 0)
            await c.execute(_END_ROW, extractor, version)

    async def record_failure(self, extractor: str, version: str, url: str, now: float) -> int:
        async with self._db.transaction() as c:
            await c.execute(_COUNT, extractor, version, 0, 1)
            await c.execute(_ADD_LINK, extractor, version, url, now)
            in_a_row: int = await c.fetchval(_IN_A_ROW, extractor, version)
        return in_a_row

    async def tally(self, extractor: str, version: str) -> Tally:
        row = await self._db.fetchrow(_TALLY, extractor, version)
        return Tally(int(row[0]), int(row[1])) if row is not None else Tally()

    async def add_rollback(self, rollback: Rollback) -> bool:
        r = rollback
        return await self._db.execute(_ADD_ROLLBACK, r.version, r.extractor, r.to_version, r.at) == 1

    async def rollbacks(self) -> list[Rollback]:
        return [Rollback(v, e, t, at) for v, e, t, at in await self._db.fetch(_ROLLBACKS)]

    async def requeue_failed_links(self, rolled_back_since: float, now: float) -> list[int]:
        found: list[int] = []
        async with self._db.transaction() as c:
            for extractor, version, url, failed_at in await c.fetch(_OPEN_LINKS, rolled_back_since):
                of_link = [row[0] for row in await c.fetch(_DEAD_OF_LINK, url, failed_at, now)]
                of_link += [row[0] for row in await c.fetch(_DUE_NOW, now, url)]
                if of_link:
                    await c.execute(_REQUEUED, extractor, version, url)
                found += of_link
        if found:
            self._notifier.announce()
        return sorted(found)
