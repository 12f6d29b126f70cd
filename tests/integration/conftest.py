"""Shared fixtures for adapters that run for real: the local video site and a yt-dlp downloader."""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from adapters.ytdlp import YtDlpDownloader
from adapters.ytdlp.entries import to_video_info
from ports.media import VideoInfo
from testkit.video_site import VideoServer

CLIPS_DIR = Path(tempfile.gettempdir()) / "vidrelay-test-clips"
"""Shared by test runs: the clips are named by a hash of how they are made, and written atomically."""
CLOUD_LIMIT = 50 * 1024 * 1024


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


def direct_entry(url: str, video_id: str) -> dict[str, Any]:
    """yt-dlp's entry for a direct link, as its generic extractor writes it (minus the noise)."""
    return {
        "id": video_id,
        "title": video_id,
        "extractor": "generic",
        "extractor_key": "Generic",
        "webpage_url": url,
        "direct": True,
        "format_id": "mp4",
        "ext": "mp4",
        "formats": [{"format_id": "mp4", "url": url, "ext": "mp4", "protocol": "http"}],
    }


def direct_info(server: VideoServer, path: str) -> VideoInfo:
    """What a scrape of a direct link on the server gives, without spending a yt-dlp run on it."""
    url = server.url(path)
    entry = direct_entry(url, Path(path).stem)
    return to_video_info(url, entry, json.dumps(entry), CLOUD_LIMIT)


def names_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


async def wait_until(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    """Poll for something that must happen; fail (never pass) when it does not within `timeout`."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)
