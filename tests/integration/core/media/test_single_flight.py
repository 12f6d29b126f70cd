"""Ten concurrent requests for one video: one scrape and one download reach the site (real yt-dlp)."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

from returns.result import Success

from adapters.ffmpeg.prober import FfprobeProber
from adapters.filesystem.blob_files import LocalBlobFiles
from adapters.memory.store import MemoryStore
from adapters.system.clock import SystemClock
from adapters.ytdlp import YtDlpDownloader
from core.media.blob_service import BlobService
from core.media.info_cache import InfoService
from testkit.video_site import Body, VideoServer


async def test_ten_concurrent_requests_for_one_url_cause_one_scrape_and_one_download(
    video_server: VideoServer, ytdlp: YtDlpDownloader, tmp_path: Path
) -> None:
    clip = video_server.clip("medium").read_bytes()
    video_server.set_route("/shared/clip.mp4", Body(clip, "video/mp4"))
    url = video_server.url("/shared/clip.mp4")
    store, clock = MemoryStore(), SystemClock()
    info = InfoService(store, ytdlp, clock)
    blobs = BlobService(
        index=store, files=LocalBlobFiles(tmp_path), pending=store, clock=clock, prober=FfprobeProber()
    )

    async def request() -> str:
        [entry] = (await info.scrape(url, timeout=60)).unwrap()
        fetched = await blobs.fetch(entry, ytdlp, timeout=60)
        assert isinstance(fetched, Success)
        path = blobs.path_of(fetched.unwrap())
        assert path is not None
        return hashlib.sha256(path.read_bytes()).hexdigest()

    digests = await asyncio.gather(*(request() for _ in range(10)))
    assert set(digests) == {hashlib.sha256(clip).hexdigest()}
    gets = [r for r in video_server.requests if r.path == "/shared/clip.mp4"]
    assert len(gets) == 2  # the scrape's look at the link, then the one download
