"""A downloader and a prober the blob service's tests script, and the video they fetch."""

from __future__ import annotations

import asyncio
from pathlib import Path

from returns.result import Failure, Result, Success

from adapters.filesystem.blob_files import LocalBlobFiles
from adapters.memory.store import MemoryStore
from core.blob_names import blob_key
from ports.jobs import NewJob
from ports.media import MediaProbe, OutputSink, Progress, ProgressSink, ToolFailure, VideoInfo
from ports.pending import PendingRequest
from tests.support.clock import VirtualClock

WAIT = 5.0
"""Upper bound for events the test is waiting for; reached only when the code is broken."""


INFO = VideoInfo(
    url="https://example.com/v/1",
    webpage_url="https://example.com/v/1",
    extractor="example",
    id="1",
    title="A clip",
    format_id="hd",
    ext="mp4",
    info_json="{}",
    duration=9.0,
    width=320,
    height=240,
)


KEY = blob_key(INFO)


def empty_folder(path: Path) -> bool:
    return path.is_dir() and not any(path.iterdir())


def path_exists(path: Path) -> bool:
    return path.exists()


class FakeDownloader:
    """Writes one file into the staging folder; the test decides when it may finish."""

    def __init__(self, content: bytes = b"video bytes", suffix: str = ".mp4") -> None:
        self.content = content
        self.suffix = suffix
        self.calls: list[tuple[VideoInfo, Path, float]] = []
        self.started = asyncio.Event()
        self.finish = asyncio.Event()
        self.finish.set()
        self.cancelled = False
        self.failure: ToolFailure | None = None
        self.error: Exception | None = None

    async def scrape(
        self, url: str, *, timeout: float, verbose: bool = False, on_output: OutputSink | None = None
    ) -> Result[list[VideoInfo], ToolFailure]:
        raise AssertionError("the blob store never scrapes")

    async def download(
        self,
        info: VideoInfo,
        staging: Path,
        *,
        timeout: float,
        verbose: bool = False,
        on_progress: ProgressSink | None = None,
        on_output: OutputSink | None = None,
    ) -> Result[Path, ToolFailure]:
        self.calls.append((info, staging, timeout))
        assert empty_folder(staging)
        (staging / "clip.part").write_bytes(b"half")
        self.started.set()
        if on_progress:
            on_progress(Progress(percent=50.0, speed_bytes=None, eta_seconds=None))
        if on_output:
            on_output("[download]  50.0%")
        try:
            await self.finish.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        if self.error:
            raise self.error
        if self.failure:
            return Failure(self.failure)
        (staging / "clip.part").unlink()
        produced = staging / f"A clip [1]{self.suffix}"
        produced.write_bytes(self.content)
        return Success(produced)

    async def version(self) -> str | None:
        return "test"


class FakeProber:
    def __init__(self, probe: MediaProbe | None = None) -> None:
        self.probe_result = probe
        self.probed: list[Path] = []

    async def probe(self, path: Path) -> MediaProbe | None:
        self.probed.append(path)
        assert path_exists(path)
        return self.probe_result


def staging_folders(files: LocalBlobFiles) -> list[Path]:
    return list(files.staging_dir.iterdir()) if files.staging_dir.exists() else []


async def pin(store: MemoryStore, key: str, clock: VirtualClock) -> None:
    job = NewJob("send_confirmed", {"key": key}, 3)
    await store.park(PendingRequest("p1", -100, 7, 1, job, key, clock.now()))
