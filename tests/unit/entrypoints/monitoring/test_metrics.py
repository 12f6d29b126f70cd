"""`/metrics` and `/healthz` as the container builds them, over a bot that delivers a link."""

from __future__ import annotations

import asyncio

from aiohttp.test_utils import TestClient, TestServer

from entrypoints.monitoring.metrics import metrics_app
from tests.support.prometheus_text import values
from tests.support.world import World

URL = "https://videos.example/watch/1"


async def test_a_delivered_link_moves_the_job_counters_and_both_histograms(
    world: World,
) -> None:
    world.downloader.serve(URL)
    posted = world.clock.now() - 12  # read 12 s late: the bot was restarting
    await world.post(URL, posted_at=posted)
    await world.idle()
    delivered = world.clock.now()
    async with TestClient(TestServer(metrics_app(world.container.observed()))) as client:
        response = await client.get("/metrics")
        text = await response.text()
    assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    seen = values(text)
    assert seen['vidrelay_jobs_enqueued_total{job_name="download_video"}'] == 1
    assert seen['vidrelay_jobs_completed_total{job_name="download_video"}'] == 1
    assert seen['vidrelay_job_claim_to_done_seconds_count{job_name="download_video"}'] == 1
    assert seen["vidrelay_post_to_video_seconds_count"] == 1
    assert 12 <= seen["vidrelay_post_to_video_seconds_sum"] <= delivered - posted
    assert seen["vidrelay_queue_depth"] == 0
    assert seen["vidrelay_workers_live"] == seen["vidrelay_workers_configured"] == 3
    assert seen['vidrelay_ytdlp_info{version="2099.01.01"}'] == 1  # the scripted yt-dlp's


async def test_healthz_is_200_only_while_updates_come_in_and_every_worker_lives(world: World) -> None:
    observed = world.container.observed()
    async with TestClient(TestServer(metrics_app(observed))) as client:
        before = await client.get("/healthz")
        assert before.status == 503
        assert "not receiving updates" in await before.text()
        polling: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        observed.liveness.polling(polling)
        healthy = await client.get("/healthz")
        assert (healthy.status, await healthy.text()) == (200, "ok\n")
        await world.engine.stop(grace_seconds=0)  # the workers are gone
        gone = await client.get("/healthz")
        assert gone.status == 503
        assert await gone.text() == "unhealthy: 0 of 3 workers alive\n"
        polling.cancel()
