"""The composition root's shutdown stops what the yt-dlp adapter started: its warm fork server
exits and is reaped, and the guard's proxy its runs went through closes."""

from __future__ import annotations

from pathlib import Path

import pytest
from returns.result import Success

from adapters.ytdlp import YtDlpDownloader
from entrypoints.container import Container, shutdown
from entrypoints.settings import load_settings
from testkit.video_site import VideoServer
from tests.support.procs import alive

pytestmark = pytest.mark.slow


async def test_shutdown_stops_the_warm_yt_dlp_server(tmp_path: Path, video_server: VideoServer) -> None:
    settings = load_settings(
        {
            "VIDRELAY_DATA_DIR": str(tmp_path),
            "VIDRELAY_PRIVATE_URL_ALLOWLIST": f"127.0.0.1:{video_server.port}",
            "VIDRELAY_YTDLP_WARM": "true",
        }
    )
    built = Container(settings=settings)
    downloader = await built.downloader.async_()
    assert isinstance(downloader, YtDlpDownloader)
    scraped = await downloader.scrape(video_server.url("/clips/short.mp4"), timeout=60)
    assert isinstance(scraped, Success), scraped
    [server] = downloader.forkserver_pids
    proxy = downloader.proxy
    assert proxy is not None
    assert proxy.listening

    await shutdown(built)

    assert not alive(server)
    assert downloader.forkserver_pids == []
    assert not proxy.listening
