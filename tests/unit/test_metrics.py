"""`/metrics` and `/healthz` read the status query the container builds."""

from __future__ import annotations

from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from adapters.memory.store import MemoryStore
from core.jobs.health import EngineHealth
from core.pipeline.periodic import UpdateStatus
from core.status import StatusQuery
from entrypoints.bot.metrics import metrics_app
from ports.jobs import NewJob
from tests.support.clock import VirtualClock
from tests.support.downloader import ScriptedDownloader
from tests.support.world import faked_container
from tests.unit.test_status import Workers


async def test_metrics_and_health_are_served(tmp_path: Path, clock: VirtualClock) -> None:
    container = faked_container(clock, tmp_path)
    await container.store().enqueue(NewJob("download_video", {}, 3), clock.now())
    async with TestClient(TestServer(metrics_app(container.status()))) as client:
        metrics = await (await client.get("/metrics")).text()
    assert "vidrelay_jobs_waiting 1" in metrics
    assert "vidrelay_jobs_failed 0" in metrics
    assert "vidrelay_jobs_completed_total 0" in metrics
    assert 'vidrelay_ytdlp_info{version="2099.01.01"} 1' in metrics  # the scripted yt-dlp's


async def test_health_is_ok_once_every_worker_runs(tmp_path: Path, clock: VirtualClock) -> None:
    container = faked_container(clock, tmp_path)
    engine = container.engine()
    await engine.start()
    try:
        async with TestClient(TestServer(metrics_app(container.status()))) as client:
            health = await client.get("/healthz")
            assert (health.status, await health.text()) == (200, "ok\nworkers 3/3\n")
    finally:
        await engine.stop(0)


class Unhealthy(Workers):
    def __init__(self, health: EngineHealth) -> None:
        super().__init__()
        self._health = health

    def health(self) -> EngineHealth:
        return self._health


@pytest.mark.parametrize(
    ("health", "status", "text"),
    [
        (EngineHealth(3, 3, 0.0, True, 30.0), 503, "unhealthy: the store refuses writes\nworkers 3/3\n"),
        (EngineHealth(2, 3, 31.0, False, 30.0), 503, "unhealthy: 1 worker(s) missing for 31s\nworkers 2/3\n"),
        (EngineHealth(2, 3, 5.0, False, 30.0), 200, "ok: 1 worker(s) missing for 5s\nworkers 2/3\n"),
    ],
    ids=["store-refuses-writes", "a-worker-missing-for-long", "a-worker-restarting"],
)
async def test_health_answers_503_while_the_store_refuses_writes_or_workers_stay_missing(
    clock: VirtualClock, health: EngineHealth, status: int, text: str
) -> None:
    query = StatusQuery(MemoryStore(), ScriptedDownloader(), Unhealthy(health), UpdateStatus(), clock)
    async with TestClient(TestServer(metrics_app(query))) as client:
        answer = await client.get("/healthz")
        assert (answer.status, await answer.text()) == (status, text)
