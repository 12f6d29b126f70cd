"""The whole pipeline wired over in-process fakes: memory store, fake chat, scripted yt-dlp, real files."""

from __future__ import annotations

import itertools
from pathlib import Path

from adapters.filesystem.blob_files import LocalBlobFiles
from adapters.memory.store import MemoryStore
from core.jobs.engine import Engine, EngineConfig
from core.jobs.registry import JobRegistry
from core.lifecycle import RetryPolicy
from core.media.blob_service import BlobService
from core.media.info_cache import InfoService
from core.pipeline.confirm import Confirmations
from core.pipeline.download import DownloadVideo
from core.pipeline.inline import DownloadInline
from core.pipeline.intake import IncomingMessage, LinkIntake
from core.pipeline.job_types import job_types
from core.pipeline.periodic import Periodic
from core.pipeline.services import PipelineConfig, Services
from core.pipeline.url_guard import UrlGuard
from core.urls import Entity
from ports.net import HostResolver
from tests.support.clock import VirtualClock
from tests.support.downloader import ScriptedDownloader
from tests.support.messenger import FakeMessenger

PRIVATE_CHAT = 1001
GROUP_CHAT = -2002
INLINE_CACHE_CHAT = -3003
USER = 1001
OTHER_USER = 1002


class FixedResolver(HostResolver):
    def __init__(self) -> None:
        self.addresses: dict[str, list[str]] = {"localhost": ["127.0.0.1"], "internal.test": ["10.0.0.5"]}

    async def resolve(self, host: str) -> list[str]:
        return self.addresses.get(host, ["93.184.216.34"])


class World:
    def __init__(self, clock: VirtualClock, data_dir: Path, config: PipelineConfig | None = None) -> None:
        self.clock = clock
        self.store = MemoryStore()
        self.messenger = FakeMessenger()
        self.downloader = ScriptedDownloader()
        self.files = LocalBlobFiles(data_dir)
        self.config = config or PipelineConfig(ytdlp_timeout_seconds=60.0)
        self.blobs = BlobService(self.store, self.files, self.store, clock)
        self.info = InfoService(self.store, self.downloader, clock)
        registry = JobRegistry()
        self.engine = Engine(
            self.store,
            clock,
            registry,
            EngineConfig(concurrency=3, retry=RetryPolicy(base_seconds=1.0, jitter=0.0)),
            lambda: 0.5,
            "test",
        )
        ids = itertools.count(1)
        self.services = Services(
            info=self.info,
            blobs=self.blobs,
            downloader=self.downloader,
            messenger=self.messenger,
            pending=self.store,
            handled=self.store,
            guard=UrlGuard(FixedResolver(), allow_private=False),
            clock=clock,
            jobs=self.engine,
            new_id=lambda: f"p{next(ids)}",
        )
        self.download = DownloadVideo(self.services, self.config)
        self.inline = DownloadInline(self.services, INLINE_CACHE_CHAT, self.config.upload_limit_bytes, 60.0)
        self.confirmations = Confirmations(self.store, clock, self.engine.wake)
        periodic = Periodic(
            None, 0, self.engine.close_breakers, self.blobs, self.info, self.store, self.confirmations, clock
        )
        for job_type in job_types(self.download, self.inline, periodic, download_timeout=900.0):
            registry.register(job_type)
        self.intake = LinkIntake(self.engine, self.store, self.services.guard, max_queued_per_user=10)
        self._message_ids = itertools.count(1)

    async def post(
        self,
        url: str,
        chat_id: int = PRIVATE_CHAT,
        user_id: int = USER,
        *,
        text: str | None = None,
        verbose: bool = False,
    ) -> int:
        """A user posts `url` (as a Telegram `url` entity); returns the user's message id."""
        body = text if text is not None else f"look {url}"
        start = body.find(url)
        entities = [
            Entity("url", len(body[:start].encode("utf-16-le")) // 2, len(url.encode("utf-16-le")) // 2)
        ]
        message_id = next(self._message_ids)
        chat_type = "private" if chat_id > 0 else "supergroup"
        await self.intake.accept(
            IncomingMessage(chat_id, chat_type, message_id, user_id, body, entities, verbose)
        )
        return message_id

    async def idle(self) -> None:
        """Run virtual time until no job is waiting or running (retries included)."""

        async def busy() -> bool:
            counts = await self.store.counts()
            return counts.waiting + counts.running > 0

        for _ in range(2000):
            if not await busy():
                return
            await self.clock.advance(0.5)
        raise AssertionError("jobs did not drain")
