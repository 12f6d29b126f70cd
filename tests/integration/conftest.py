"""Shared fixtures for adapters that run for real: the local video site, a yt-dlp downloader, the
fake Bot API (with a private chat and a group), a staging folder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.ytdlp import YtDlpDownloader
from testkit.telegram import FakeBotApi
from testkit.video_site import VideoServer
from tests.support.integration import CLIPS_DIR, CLOUD_LIMIT
from tests.support.people import GROUP, PRIVATE


@pytest.fixture
async def video_server() -> AsyncIterator[VideoServer]:
    async with VideoServer(CLIPS_DIR) as server:
        yield server


@pytest.fixture
def staging(tmp_path: Path) -> Path:
    """An empty per-test staging folder; its path is unique, so it marks this test's processes."""
    folder = tmp_path / "staging"
    folder.mkdir()
    return folder


@pytest.fixture
async def ytdlp() -> AsyncIterator[YtDlpDownloader]:
    downloader = YtDlpDownloader(max_filesize_bytes=CLOUD_LIMIT, concurrency=3, kill_grace_seconds=1.0)
    yield downloader
    await downloader.shutdown()


@pytest.fixture
async def api() -> AsyncIterator[FakeBotApi]:
    """The fake Bot API on 127.0.0.1, knowing a private chat with ALICE and a group."""
    async with FakeBotApi() as server:
        server.add_chat(PRIVATE)
        server.add_chat(GROUP)
        yield server
