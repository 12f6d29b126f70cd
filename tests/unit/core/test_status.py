"""One status query for /status and /metrics: the queue, the workers, and a yt-dlp version that
costs one process start per ten minutes, not one per scrape."""

from __future__ import annotations

from collections import Counter

from adapters.memory.store import MemoryStore
from core.status import VERSION_TTL_SECONDS, StatusQuery
from core.updater_status import UpdateStatus
from ports.jobs import NewJob
from tests.support.clock import VirtualClock
from tests.support.downloader import ScriptedDownloader


class CountingDownloader(ScriptedDownloader):
    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    async def version(self) -> str | None:
        self.asked += 1
        return f"2099.01.0{self.asked}"


class Workers:
    def __init__(self) -> None:
        self.in_flight = 2
        self.stats = Counter({"completed": 5, "dead_lettered": 1})


async def test_the_status_reads_the_queue_and_the_workers(clock: VirtualClock) -> None:
    store = MemoryStore()
    await store.enqueue(NewJob("download_video", {}, 3), clock.now())
    status = await StatusQuery(store, ScriptedDownloader(), Workers(), UpdateStatus(), clock).read()
    assert (status.waiting, status.running, status.failed, status.in_flight) == (1, 0, 0, 2)
    assert (status.completed, status.retried, status.dead_lettered) == (5, 0, 1)
    assert (status.ytdlp_version, status.last_update_check) == ("2099.01.01", "never")


async def test_the_version_is_asked_once_per_ttl(clock: VirtualClock) -> None:
    downloader = CountingDownloader()
    query = StatusQuery(MemoryStore(), downloader, Workers(), UpdateStatus(), clock)
    first = [(await query.read()).ytdlp_version for _ in range(3)]
    await clock.advance(VERSION_TTL_SECONDS)
    later = (await query.read()).ytdlp_version
    assert (first, later, downloader.asked) == (["2099.01.01"] * 3, "2099.01.02", 2)


async def test_the_updaters_report_wins_over_asking(clock: VirtualClock) -> None:
    downloader = CountingDownloader()
    updates = UpdateStatus(checked_at=clock.now(), version="2100.02.02")
    status = await StatusQuery(MemoryStore(), downloader, Workers(), updates, clock).read()
    assert (status.ytdlp_version, downloader.asked) == ("2100.02.02", 0)
    assert status.last_update_check.endswith("(ok)")
