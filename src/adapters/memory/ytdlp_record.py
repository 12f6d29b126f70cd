"""How each yt-dlp release fared, and the releases rolled back, in memory."""

from __future__ import annotations

from dataclasses import replace

from adapters.memory.tables import FailedLink, MemoryTablesUser
from ports.jobs import NewJob
from ports.ytdlp_record import Rollback, Tally, YtDlpRecord


class MemoryYtDlpRecord(MemoryTablesUser, YtDlpRecord):
    async def record_success(self, extractor: str, version: str) -> None:
        tally = self._tables.ytdlp_tallies.get((extractor, version), Tally())
        self._tables.ytdlp_tallies[extractor, version] = replace(tally, successes=tally.successes + 1)
        if version not in self._tables.ytdlp_rollbacks:
            links = self._tables.ytdlp_failed_links
            for key in [k for k in links if k[:2] == (extractor, version)]:
                del links[key]

    async def record_failure(self, extractor: str, version: str, url: str, now: float) -> int:
        tally = self._tables.ytdlp_tallies.get((extractor, version), Tally())
        self._tables.ytdlp_tallies[extractor, version] = replace(tally, failures=tally.failures + 1)
        links = self._tables.ytdlp_failed_links
        links.setdefault((extractor, version, url), FailedLink(now))
        return sum(1 for k in links if k[:2] == (extractor, version))

    async def tally(self, extractor: str, version: str) -> Tally:
        return self._tables.ytdlp_tallies.get((extractor, version), Tally())

    async def add_rollback(self, rollback: Rollback) -> bool:
        if rollback.version in self._tables.ytdlp_rollbacks:
            return False
        self._tables.ytdlp_rollbacks[rollback.version] = rollback
        return True

    async def rollbacks(self) -> list[Rollback]:
        return sorted(self._tables.ytdlp_rollbacks.values(), key=lambda r: r.at)

    async def requeue_failed_links(self, rolled_back_since: float, now: float) -> list[int]:
        recent = {r.version for r in self._tables.ytdlp_rollbacks.values() if r.at >= rolled_back_since}
        found: list[int] = []
        for (_, version, url), link in self._tables.ytdlp_failed_links.items():
            if version in recent and not link.requeued:
                of_link = self._requeue_dead(url, link.failed_at, now) + self._make_due(url, now)
                link.requeued = bool(of_link)
                found += of_link
        return sorted(found)

    def _requeue_dead(self, url: str, failed_since: float, now: float) -> list[int]:
        failed = self._tables.failed
        dead = [f for f in failed.values() if f.payload.get("url") == url and f.failed_at >= failed_since]
        for row in dead:
            del failed[row.id]
        return [
            self._tables.insert_job(
                NewJob(row.name, row.payload, row.max_attempts, key=row.key, owner_id=row.owner_id), now
            )
            for row in dead
        ]

    def _make_due(self, url: str, now: float) -> list[int]:
        jobs = self._tables.jobs
        waiting = [
            j
            for j in jobs.values()
            if j.payload.get("url") == url
            and j.claimed_by is None
            and j.attempts > 0
            and j.available_at > now
        ]
        for job in waiting:
            jobs[job.id] = replace(job, available_at=now)
        return [j.id for j in waiting]
