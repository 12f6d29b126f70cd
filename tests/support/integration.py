"""What the integration tests share besides their fixtures: the clips' folder, yt-dlp entries as
a real scrape writes them, fake yt-dlp installs, and a bounded wait for something that must happen."""

from __future__ import annotations

import asyncio
import json
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adapters.ytdlp.entries import to_video_info
from ports.media import VideoInfo
from testkit.video_site import VideoServer

CLIPS_DIR = Path(tempfile.gettempdir()) / "vidrelay-test-clips"
"""Shared by test runs: the clips are named by a hash of how they are made, and written atomically."""
CLOUD_LIMIT = 50 * 1024 * 1024


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


def install_fake_ytdlp(data: Path, version: str, main: str) -> Path:
    """A fake yt_dlp package installed where the updater puts a release; its install dir."""
    package = data / "ytdlp" / "versions" / version / "yt_dlp"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(textwrap.dedent(main))
    return package.parent


def switch_ytdlp(data: Path, version: str) -> None:
    """The updater's switch: a new symlink renamed over `current`."""
    link = data / "ytdlp" / "current"
    tmp = link.with_name("current.new")
    tmp.symlink_to(data / "ytdlp" / "versions" / version)
    tmp.replace(link)
