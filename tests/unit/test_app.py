"""The composition root builds the real app over fakes: its job list, and its metrics endpoint."""

from __future__ import annotations

import random
from pathlib import Path

from aiohttp.test_utils import TestClient, TestServer

from adapters.filesystem.blob_files import LocalBlobFiles
from adapters.memory.store import MemoryStore
from entrypoints.app import Adapters, App, build_app
from entrypoints.bot.metrics import metrics_app
from entrypoints.settings import load_settings
from ports.jobs import NewJob
from ports.media import MediaProbe, MediaProber, UpdateOutcome, Updater
from tests.support.clock import VirtualClock
from tests.support.downloader import ScriptedDownloader
from tests.support.messenger import FakeMessenger
from tests.support.world import FixedResolver


class NoProbe(MediaProber):
    async def probe(self, path: Path) -> MediaProbe | None:
        return None


class StaleUpdater(Updater):
    async def update(self) -> UpdateOutcome:
        return UpdateOutcome(changed=False, version_before="2026.01.01", version_after="2026.01.01")

    async def current_version(self) -> str | None:
        return "2026.01.01"


def app(tmp_path: Path, clock: VirtualClock, **env: str) -> App:
    adapters = Adapters(
        store=MemoryStore(),
        messenger=FakeMessenger(),
        downloader=ScriptedDownloader(),
        prober=NoProbe(),
        files=LocalBlobFiles(tmp_path),
        resolver=FixedResolver(),
        clock=clock,
        random=random.random,
        updater=StaleUpdater(),
    )
    return build_app(load_settings({"VIDRELAY_DATA_DIR": str(tmp_path), **env}), adapters)


def test_the_registered_job_list_is_exact(tmp_path: Path, clock: VirtualClock) -> None:
    full = app(tmp_path, clock, VIDRELAY_INLINE_CACHE_CHAT_ID="-100")
    assert full.engine.job_names() == [
        "download_video",
        "sweep_blobs",
        "sweep_caches",
        "download_inline",
        "update_ytdlp",
    ]
    bare = app(tmp_path, clock, VIDRELAY_YTDLP_UPDATE_INTERVAL_SECONDS="0")
    assert bare.engine.job_names() == ["download_video", "sweep_blobs", "sweep_caches"]
    assert bare.inline is None


async def test_metrics_and_health_are_served(tmp_path: Path, clock: VirtualClock) -> None:
    built = app(tmp_path, clock)
    await built.adapters.store.enqueue(NewJob("download_video", {}, 3), clock.now())
    async with TestClient(TestServer(metrics_app(built))) as client:
        metrics = await (await client.get("/metrics")).text()
        health = await client.get("/healthz")
        assert health.status == 200
        assert await health.text() == "ok\n"
    assert "vidrelay_jobs_waiting 1" in metrics
    assert "vidrelay_jobs_failed 0" in metrics
    assert "vidrelay_jobs_completed_total 0" in metrics
    assert 'vidrelay_ytdlp_info{version="unknown"} 1' in metrics


async def test_the_container_opens_the_store_the_settings_choose(tmp_path: Path) -> None:
    from adapters.sqlite.store import SqliteStore
    from entrypoints.container import open_store

    async with open_store(load_settings({"VIDRELAY_STORE": "memory"})) as memory:
        assert isinstance(memory, MemoryStore)
    sqlite_settings = load_settings({"VIDRELAY_STORE": "sqlite", "VIDRELAY_DATA_DIR": str(tmp_path)})
    async with open_store(sqlite_settings) as sqlite:
        assert isinstance(sqlite, SqliteStore)
        await sqlite.enqueue(NewJob("download_video", {}, 3), 0.0)
    assert (tmp_path / "vidrelay.db").exists()
    async with open_store(sqlite_settings) as reopened:
        assert (await reopened.counts()).waiting == 1
