"""The release watch's world: the memory store's record, an updater with a shelf of versions, and
what the watch reports."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection
from dataclasses import dataclass, field

import pytest

from adapters.memory.store import MemoryStore
from core.updater_status import UpdateStatus
from core.work.rollback.watch import ReleaseWatch
from ports.media import ToolFailure, UpdateOutcome, Updater, VideoInfo
from tests.support.clock import VirtualClock

PACKAGED, GOOD, BAD, NEWER = "2098.1.1", "2099.1.1", "2099.2.1", "2099.3.1"
BROKEN = (
    "ERROR: [generic] Unable to extract video url; please report this issue on "
    "https://github.com/yt-dlp/yt-dlp/issues?q= , filling out the appropriate issue template."
)


class ShelfUpdater(Updater):
    """The versions kept, oldest first (the packaged one first); one of them in use."""

    def __init__(self, *kept: str, current: str) -> None:
        self.kept = list(kept)
        self.current = current
        self.rolled_back: list[tuple[str, str]] = []

    async def update(self, avoid: Collection[str] = ()) -> UpdateOutcome:
        raise AssertionError("the watch never updates")

    async def current_version(self) -> str | None:
        return self.current

    async def previous_version(self, avoid: Collection[str] = ()) -> str | None:
        older = self.kept[: self.kept.index(self.current)]
        return next((v for v in reversed(older) if v not in avoid), None)

    async def roll_back(self, avoid: Collection[str]) -> UpdateOutcome:
        before = self.current
        if before not in avoid:
            return UpdateOutcome(False, before, before)
        previous = await self.previous_version(avoid)
        if previous is None:
            return UpdateOutcome(False, before, before, error=f"no yt-dlp older than {before} is kept")
        self.current = previous
        self.rolled_back.append((before, previous))
        return UpdateOutcome(True, before, previous)


@dataclass
class Told:
    rollbacks: list[str] = field(default_factory=list)
    switched: int = 0
    woken: int = 0

    def ytdlp_rolled_back(self, extractor: str) -> None:
        self.rollbacks.append(extractor)

    def switch(self) -> None:
        self.switched += 1

    def wake(self) -> None:
        self.woken += 1


@dataclass
class Watched:
    watch: ReleaseWatch
    store: MemoryStore
    updater: ShelfUpdater
    told: Told
    status: UpdateStatus


def entry(url: str, extractor: str = "generic") -> VideoInfo:
    return VideoInfo(url, url, extractor, "id", "title", "mp4", "mp4", "{}")


def broken(line: str = BROKEN) -> ToolFailure:
    return ToolFailure(f"[generic] Extracting URL\n{line}\n", exit_code=1)


def watched(store: MemoryStore, clock: VirtualClock, updater: ShelfUpdater, *, threshold: int = 3) -> Watched:
    told, status = Told(), UpdateStatus()
    watch = ReleaseWatch(
        record=store,
        updater=updater,
        events=told,
        status=status,
        clock=clock,
        threshold=threshold,
        on_switched=told.switch,
        wake=told.wake,
    )
    return Watched(watch, store, updater, told, status)


@pytest.fixture
async def store() -> AsyncIterator[MemoryStore]:
    made = MemoryStore()
    yield made
    await made.close()


@pytest.fixture
def on_bad(store: MemoryStore, clock: VirtualClock) -> Watched:
    """A process whose update just installed BAD over GOOD (kept), over the packaged yt-dlp."""
    return watched(store, clock, ShelfUpdater(PACKAGED, GOOD, BAD, current=BAD))
