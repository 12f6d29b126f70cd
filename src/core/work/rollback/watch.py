"""Judging each yt-dlp release by the scrapes it runs, and going back from one that broke an extractor.

Every scrape counts for its extractor on the version that ran it (blame.py says when a failure
counts), in the store's record, which every process sharing the store reads. When `threshold`
links of one extractor have failed in a row on a version, and the version it would go back to ran
that extractor successfully, the version is rolled back: recorded (every process leaves it, no
update installs it again), the previous version selected, the circuit breakers reopened, the
operator told in one warning (the extractor, both versions), counted, and the jobs of the links
that failed on it requeued once. A process that meets a counted failure on a version another one
rolled back leaves it too; so does the update job, before it looks for a newer release.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from returns.result import Failure, Result, Success

from core.jobs.hooks import DeadJob
from core.updater_status import UpdateStatus
from core.work.rollback.blame import BLAMED_CODES, blamed, succeeded
from ports.clock import Clock
from ports.media import ToolFailure, Updater, VideoInfo
from ports.telemetry import RollbackEvents
from ports.ytdlp_record import Rollback, YtDlpRecord

log = logging.getLogger("vidrelay.ytdlp.rollback")

REQUEUE_WINDOW_SECONDS = 3600.0
"""A job of a failed link that dies this long after the rollback is no longer taken for its victim."""

Scraped = Result[list[VideoInfo], ToolFailure]


class ReleaseWatch:
    def __init__(
        self,
        *,
        record: YtDlpRecord,
        updater: Updater,
        events: RollbackEvents,
        status: UpdateStatus,
        clock: Clock,
        threshold: int,
        on_switched: Callable[[], None],
        wake: Callable[[], None],
    ) -> None:
        """`threshold` 0: this process decides no rollback (it still leaves one another made);
        `on_switched`: another yt-dlp runs now (the breakers reopen); `wake`: jobs were requeued."""
        self._record = record
        self._updater = updater
        self._events = events
        self._status = status
        self._clock = clock
        self._threshold = threshold
        self._on_switched = on_switched
        self._wake = wake
        self._told_stuck: set[str] = set()

    async def version(self) -> str | None:
        return await self._updater.current_version()

    async def judge(self, url: str, version: str | None, scraped: Scraped) -> bool:
        """Count a scrape of `url` that started on `version`. True when it failed and another
        version is in use now (switched while it ran, or because of it): worth one more run."""
        if version is None:
            return False
        if await self.version() != version:  # which one ran it is unknown: not counted
            return isinstance(scraped, Failure) and not scraped.failure().aborted
        if isinstance(scraped, Success):
            for extractor in succeeded(scraped.unwrap()):
                await self._record.record_success(extractor, version)
            return False
        broken = blamed(scraped.failure())
        if broken is None:
            return False
        await self._failed(broken, version, url)
        return await self.version() != version

    async def follow(self) -> list[str]:
        """Leave the version in use if any process rolled it back; the versions rolled back."""
        rollbacks = await self._record.rollbacks()
        await self._leave(rollbacks)
        return [r.version for r in rollbacks]

    async def on_dead(self, dead: DeadJob) -> None:
        """A job's hook: a failed link's job that died only after the rollback is requeued now."""
        if dead.failure is not None and dead.failure.code in BLAMED_CODES:
            await self._requeue()

    async def _failed(self, extractor: str, version: str, url: str) -> None:
        now = self._clock.now()
        in_a_row = await self._record.record_failure(extractor, version, url, now)
        rollbacks = await self._record.rollbacks()
        if all(r.version != version for r in rollbacks):
            decided = await self._decide(extractor, version, in_a_row, rollbacks, now)
            if decided is None:
                return
            await self._record.add_rollback(decided)
            rollbacks = await self._record.rollbacks()
        await self._leave(rollbacks)

    async def _decide(
        self, extractor: str, version: str, in_a_row: int, rollbacks: list[Rollback], now: float
    ) -> Rollback | None:
        if not 0 < self._threshold <= in_a_row:
            return None
        previous = await self._updater.previous_version([version, *(r.version for r in rollbacks)])
        if previous is None or (await self._record.tally(extractor, previous)).successes == 0:
            return None  # nothing says an older release did better
        return Rollback(version, extractor, previous, now)

    async def _leave(self, rollbacks: list[Rollback]) -> None:
        current = await self.version()
        broken = next((r for r in rollbacks if r.version == current), None)
        if broken is None:
            return
        outcome = await self._updater.roll_back([r.version for r in rollbacks])
        if outcome.changed:
            self._switched(broken, outcome.version_before, outcome.version_after)
        elif outcome.error is not None and broken.version not in self._told_stuck:
            self._told_stuck.add(broken.version)
            log.error(
                "yt-dlp %s broke the %s extractor and cannot be rolled back",
                current,
                broken.extractor,
                extra={"extractor": broken.extractor, "error": outcome.error},
            )
        await self._requeue()

    def _switched(self, broken: Rollback, before: str | None, after: str | None) -> None:
        log.warning(
            "yt-dlp rolled back from %s to %s: it broke the %s extractor",
            before,
            after,
            broken.extractor,
            extra={"extractor": broken.extractor, "from_version": before, "to_version": after},
        )
        self._events.ytdlp_rolled_back(broken.extractor)
        self._status.version = after
        self._on_switched()

    async def _requeue(self) -> None:
        now = self._clock.now()
        requeued = await self._record.requeue_failed_links(now - REQUEUE_WINDOW_SECONDS, now)
        if requeued:
            log.info(
                "requeued %d job(s) of links that failed on a rolled-back yt-dlp",
                len(requeued),
                extra={"job_ids": ",".join(map(str, requeued))},
            )
            self._wake()
