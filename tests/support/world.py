"""The bot's real wiring (the container) over in-process fakes: a memory store, a fake chat, a
scripted yt-dlp, virtual time; the blob files are real files under the test's directory."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

from dependency_injector import providers

from adapters.memory.store import MemoryStore
from core.incoming.intake.message import IncomingMessage
from core.urls import Entity
from entrypoints.container import Container
from entrypoints.settings import load_settings
from ports.media import MediaProbe, MediaProber
from ports.net import HostResolver
from tests.support.clock import VirtualClock, settle
from tests.support.downloader import ScriptedDownloader
from tests.support.media import RecordingTranscoder, ScriptedProber
from tests.support.messenger import FakeMessenger

PRIVATE_CHAT = 1001
GROUP_CHAT = -2002
INLINE_CACHE_CHAT = -3003
USER = 1001
OTHER_USER = 1002

WORLD_ENV = {
    "VIDRELAY_INLINE_CACHE_CHAT_ID": str(INLINE_CACHE_CHAT),
    "VIDRELAY_YTDLP_TIMEOUT_SECONDS": "60",
    "VIDRELAY_YTDLP_UPDATE_INTERVAL_SECONDS": "0",
}


class FixedResolver(HostResolver):
    def __init__(self) -> None:
        self.addresses: dict[str, list[str]] = {"localhost": ["127.0.0.1"], "internal.test": ["10.0.0.5"]}

    async def resolve(self, host: str) -> list[str]:
        return self.addresses.get(host, ["93.184.216.34"])


class NoProbe(MediaProber):
    """The scripted downloads are not media files; ffprobe is tested on real clips elsewhere."""

    async def probe(self, path: Path) -> MediaProbe | None:
        return None


def faked_container(
    clock: VirtualClock, data_dir: Path, store: MemoryStore | None = None, **env: str
) -> Container:
    """The container as the bot builds it, with only what we do not own (and the store) faked."""
    settings = load_settings({"VIDRELAY_DATA_DIR": str(data_dir), "VIDRELAY_STORE": "memory", **env})
    container = Container(settings=settings)
    container.override_providers(
        clock=providers.Object(clock),
        # Mid-range: a retry waits exactly its nominal delay, whatever the jitter.
        random=providers.Object(lambda: 0.5),
        store=providers.Object(store or MemoryStore()),
        messenger=providers.Object(FakeMessenger()),
        downloader=providers.Object(ScriptedDownloader()),
        prober=providers.Object(NoProbe()),
        transcoder=providers.Object(RecordingTranscoder(ScriptedProber())),
        resolver=providers.Object(FixedResolver()),
    )
    return container


class World:
    def __init__(
        self, clock: VirtualClock, data_dir: Path, store: MemoryStore | None = None, **env: str
    ) -> None:
        """`store`: the memory store, or a subclass that fails where a test needs it to."""
        self.clock = clock
        self.container = faked_container(clock, data_dir, store, **{**WORLD_ENV, **env})
        self.settings = self.container.settings()
        self.store: MemoryStore = self.container.store()
        self.messenger: FakeMessenger = self.container.messenger()
        self.downloader: ScriptedDownloader = self.container.downloader()
        self.downloader.clock = clock
        self.files = self.container.blob_files()
        self.engine = self.container.engine()
        self.intake = self.container.intake()
        self.confirmations = self.container.confirmations()
        self._message_ids = itertools.count(1)

    async def post(
        self,
        url: str,
        chat_id: int = PRIVATE_CHAT,
        user_id: int = USER,
        *,
        text: str | None = None,
        verbose: bool = False,
        chat_type: str | None = None,
        audio: bool | None = None,
        posted_at: float | None = None,
    ) -> int:
        """A user posts `url` (as a Telegram `url` entity); returns the user's message id.

        `posted_at`: the message's date (now by default; earlier for an update the bot reads late)."""
        body = text if text is not None else f"look {url}"
        start = body.find(url)
        entities = [
            Entity("url", len(body[:start].encode("utf-16-le")) // 2, len(url.encode("utf-16-le")) // 2)
        ]
        message_id = next(self._message_ids)
        chat_type = chat_type or ("private" if chat_id > 0 else "supergroup")
        await self.intake.accept(
            IncomingMessage(
                chat_id,
                chat_type,
                message_id,
                user_id,
                body,
                entities,
                verbose,
                audio=audio,
                posted_at=self.clock.now() if posted_at is None else posted_at,
            )
        )
        return message_id

    async def _busy(self) -> bool:
        counts = await self.store.counts()
        return counts.waiting + counts.running > 0

    async def idle_now(self, real_seconds: float = 10.0) -> None:
        """Until no job is waiting or running, with no virtual time passing (blob files are
        moved in threads, so this waits in real time, bounded)."""
        deadline = asyncio.get_running_loop().time() + real_seconds
        while await self._busy():
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError("jobs did not drain")
            await asyncio.sleep(0.01)
        await settle()

    async def idle(self) -> None:
        """Run virtual time until no job is waiting or running (retries included)."""

        for _ in range(2000):
            if not await self._busy():
                return
            await self.clock.advance(0.5)
        raise AssertionError("jobs did not drain")
