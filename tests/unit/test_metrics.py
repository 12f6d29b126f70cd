"""`/metrics` and `/healthz` read the status query the container builds."""

from __future__ import annotations

from pathlib import Path

from aiohttp.test_utils import TestClient, TestServer

from entrypoints.bot.metrics import metrics_app
from ports.jobs import NewJob
from tests.support.clock import VirtualClock
from tests.support.world import faked_container


async def test_metrics_and_health_are_served(tmp_path: Path, clock: VirtualClock) -> None:
    container = faked_container(clock, tmp_path)
    await container.store().enqueue(NewJob("download_video", {}, 3), clock.now())
    async with TestClient(TestServer(metrics_app(container.status()))) as client:
        metrics = await (await client.get("/metrics")).text()
        health = await client.get("/healthz")
        assert health.status == 200
        assert await health.text() == "ok\n"
    assert "vidrelay_jobs_waiting 1" in metrics
    assert "vidrelay_jobs_failed 0" in metrics
    assert "vidrelay_jobs_completed_total 0" in metrics
    assert 'vidrelay_ytdlp_info{version="2099.01.01"} 1' in metrics  # the scripted yt-dlp's
