"""How each yt-dlp release fared, and the releases rolled back, on SQLite."""

from __future__ import annotations

from adapters.sqlite.connection import Db, changes, fetch_all, fetch_one
from adapters.sqlite.enqueues import Enqueue, insert_job
from adapters.sqlite.port_base import SqliteAccess
from ports.jobs import NewJob
from ports.ytdlp_record import Rollback, Tally, YtDlpRecord

_COUNT = """
    INSERT INTO ytdlp_tallies (extractor, version, successes, failures) VALUES (?, ?, ?, ?)
    ON CONFLICT (extractor, version) DO UPDATE SET
        successes = successes + excluded.successes, failures = failures + excluded.failures
"""
_END_ROW = """
    DELETE FROM ytdlp_failed_links WHERE extractor = ?1 AND version = ?2
    AND NOT EXISTS (SELECT 1 FROM ytdlp_rollbacks WHERE version = ?2)
"""
_ADD_LINK = """
    INSERT INTO ytdlp_failed_links (extractor, version, url, failed_at) VALUES (?, ?, ?, ?)
    ON CONFLICT DO NOTHING
"""
_IN_A_ROW = "SELECT count(*) FROM ytdlp_failed_links WHERE extractor = ? AND version = ?"
_TALLY = "SELECT successes, failures FROM ytdlp_tallies WHERE extractor = ? AND version = ?"
_ADD_ROLLBACK = """
    INSERT INTO ytdlp_rollbacks (version, extractor, to_version, at) VALUES (?, ?, ?, ?)
    ON CONFLICT DO NOTHING
"""
_ROLLBACKS = "SELECT version, extractor, to_version, at FROM ytdlp_rollbacks ORDER BY at, version"
_OPEN_LINKS = """
    SELECT l.extractor, l.version, l.url, l.failed_at FROM ytdlp_failed_links AS l
    JOIN ytdlp_rollbacks AS r ON r.version = l.version
    WHERE NOT l.requeued AND r.at >= ?
"""
_DEAD_OF_LINK = """
    DELETE FROM failed_jobs WHERE json_extract(payload, '$.url') = ? AND failed_at >= ?
    RETURNING name, payload, max_attempts, key, owner_id
"""
_DUE_NOW = """
    UPDATE jobs SET available_at = ?1
    WHERE claimed_by IS NULL AND attempts > 0 AND available_at > ?1 AND json_extract(payload, '$.url') = ?2
    RETURNING id
"""
_REQUEUED = "UPDATE ytdlp_failed_links SET requeued = 1 WHERE extractor = ? AND version = ? AND url = ?"


class SqliteYtDlpRecord(SqliteAccess, YtDlpRecord):
    async def record_success(self, extractor: str, version: str) -> None:
        async def work(db: Db) -> None:
            await db.execute(_COUNT, (extractor, version, 1, 0))
            await db.execute(_END_ROW, (extractor, version))

        await self._write(work)

    async def record_failure(self, extractor: str, version: str, url: str, now: float) -> int:
        async def work(db: Db) -> int:
            await db.execute(_COUNT, (extractor, version, 0, 1))
            await db.execute(_ADD_LINK, (extractor, version, url, now))
            return int((await fetch_one(db, _IN_A_ROW, (extractor, version)))[0])

        answer: int = await self._write(work)
        return answer

    async def tally(self, extractor: str, version: str) -> Tally:
        row = await self._read(lambda db: fetch_one(db, _TALLY, (extractor, version)))
        return Tally(int(row[0]), int(row[1])) if row is not None else Tally()

    async def add_rollback(self, rollback: Rollback) -> bool:
        r = rollback
        values = (r.version, r.extractor, r.to_version, r.at)
        added: int = await self._write(lambda db: changes(db, _ADD_ROLLBACK, values))
        return added == 1

    async def rollbacks(self) -> list[Rollback]:
        rows = await self._read(lambda db: fetch_all(db, _ROLLBACKS))
        return [Rollback(str(v), str(e), str(t), float(at)) for v, e, t, at in rows]

    async def requeue_failed_links(self, rolled_back_since: float, now: float) -> list[int]:
        async def work(db: Db) -> list[int]:
            found: list[int] = []
            for extractor, version, url, failed_at in await fetch_all(db, _OPEN_LINKS, (rolled_back_since,)):
                of_link = [
                    await insert_job(
                        db,
                        Enqueue(NewJob(name, {}, attempts, now, key, owner), payload, now, None, self._fair),
                    )
                    for name, payload, attempts, key, owner in await fetch_all(
                        db, _DEAD_OF_LINK, (url, failed_at)
                    )
                ]
                of_link += [row[0] for row in await fetch_all(db, _DUE_NOW, (now, url))]
                if of_link:
                    await db.execute(_REQUEUED, (extractor, version, url))
                found += of_link
            return sorted(found)

        requeued: list[int] = await self._write(work)
        return requeued
