"""What `/status` and `/metrics` report, read in one place so the two never disagree; the
updater's last check is written here by its periodic job (work.periodic)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from core.texts.reasons import last_update_check
from ports.clock import Clock
from ports.jobs import QueueCounts
from ports.media import Downloader
from ports.queue_view import QueueView

VERSION_TTL_SECONDS = 600.0
"""`yt-dlp --version` costs a process start and /metrics is scraped every few seconds; the
version only changes when the updater installs one (and reports it) or an operator swaps the
install underneath, so a stale answer for ten minutes at most is the bargain."""


@dataclass
class UpdateStatus:
    """What /status says about the updater."""

    checked_at: float | None = None
    version: str | None = None
    error: str | None = None
    outcomes: Counter[str] = field(default_factory=Counter)
    """Checks by outcome since start: updated, unchanged, failed (for the metrics)."""

    def describe(self) -> str:
        return last_update_check(self.checked_at, self.error)


class WorkerGauge(Protocol):
    @property
    def in_flight(self) -> int: ...

    @property
    def stats(self) -> Mapping[str, int]: ...


@dataclass(frozen=True, slots=True)
class BotStatus:
    waiting: int
    running: int
    failed: int
    in_flight: int
    completed: int
    retried: int
    dead_lettered: int
    ytdlp_version: str | None
    last_update_check: str


class StatusQuery:
    def __init__(
        self,
        queue: QueueView,
        downloader: Downloader,
        workers: WorkerGauge,
        updates: UpdateStatus,
        clock: Clock,
    ) -> None:
        self._queue = queue
        self._downloader = downloader
        self._workers = workers
        self._updates = updates
        self._clock = clock
        self._asked: tuple[float, str | None] | None = None

    async def counts(self) -> QueueCounts:
        return await self._queue.counts()

    async def read(self) -> BotStatus:
        counts = await self._queue.counts()
        stats = self._workers.stats
        return BotStatus(
            waiting=counts.waiting,
            running=counts.running,
            failed=counts.failed,
            in_flight=self._workers.in_flight,
            completed=stats.get("completed", 0),
            retried=stats.get("retried", 0),
            dead_lettered=stats.get("dead_lettered", 0),
            ytdlp_version=await self._version(),
            last_update_check=self._updates.describe(),
        )

    async def _version(self) -> str | None:
        if self._updates.version is not None:
            return self._updates.version
        now = self._clock.now()
        if self._asked is None or now - self._asked[0] >= VERSION_TTL_SECONDS:
            self._asked = (now, await self._downloader.version())
        return self._asked[1]
