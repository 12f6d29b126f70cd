"""The composition root: which adapter serves which port, chosen by the settings.

dependency-injector holds the adapters; `entrypoints.app.build_app` builds the core services
over them (a plain function that takes its adapters as arguments, so tests build the real app
with fakes). Stores open asynchronously and only the chosen one is ever opened: the Selector is
resolved, never `init_resources()`-ed, because that would open every branch.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from dependency_injector import containers, providers

from adapters.clock import SystemClock
from adapters.ffmpeg.prober import FfprobeProber
from adapters.filesystem.blob_files import LocalBlobFiles
from adapters.memory.store import MemoryStore
from adapters.net.resolver import SystemResolver
from adapters.sqlite.store import SqliteStore
from adapters.ytdlp.downloader import YtDlpDownloader
from adapters.ytdlp.locator import YtDlpLocator
from adapters.ytdlp.updater import YtDlpUpdater
from entrypoints.settings import Settings
from ports.errors import StoreError
from ports.store import Store


async def _memory_store() -> AsyncIterator[Store]:
    store = MemoryStore()
    yield store
    await store.close()


async def _sqlite_store(path: Path, synchronous: str) -> AsyncIterator[Store]:
    path.parent.mkdir(parents=True, exist_ok=True)
    store = await SqliteStore.open(path, synchronous=synchronous)
    try:
        yield store
    finally:
        await store.close()


async def _postgres_store(dsn: str | None) -> Store:
    raise StoreError("the postgres store is not part of this build yet; use VIDRELAY_STORE=sqlite")


class Container(containers.DeclarativeContainer):
    settings = providers.Dependency(instance_of=Settings)

    clock = providers.Singleton(SystemClock)
    random = providers.Object(random.random)
    store = providers.Selector(
        providers.Callable(lambda s: s.store, settings),
        memory=providers.Resource(_memory_store),
        sqlite=providers.Resource(
            _sqlite_store,
            path=providers.Callable(lambda s: s.sqlite_path, settings),
            synchronous=providers.Callable(lambda s: s.sqlite_synchronous, settings),
        ),
        postgres=providers.Resource(
            _postgres_store,
            dsn=providers.Callable(
                lambda s: s.database_url.get_secret_value() if s.database_url else None, settings
            ),
        ),
    )
    blob_files = providers.Singleton(LocalBlobFiles, providers.Callable(lambda s: s.data_dir, settings))
    locator = providers.Singleton(YtDlpLocator, providers.Callable(lambda s: s.data_dir, settings))
    downloader = providers.Singleton(
        YtDlpDownloader,
        max_filesize_bytes=providers.Callable(lambda s: s.upload_limit_bytes, settings),
        concurrency=providers.Callable(lambda s: s.ytdlp_concurrency, settings),
        locator=locator,
        warm=providers.Callable(lambda s: s.ytdlp_warm, settings),
        warm_idle_seconds=providers.Callable(lambda s: s.ytdlp_warm_idle_seconds, settings),
    )
    prober = providers.Singleton(FfprobeProber)
    updater = providers.Singleton(
        YtDlpUpdater,
        providers.Callable(lambda s: s.data_dir, settings),
        channel=providers.Callable(lambda s: s.ytdlp_channel, settings),
        pip_args=providers.Callable(lambda s: tuple(s.ytdlp_pip_args.split()), settings),
    )
    resolver = providers.Singleton(SystemResolver)


def make_container(settings: Settings) -> Container:
    return Container(settings=settings)


@asynccontextmanager
async def open_store(settings: Settings) -> AsyncIterator[Store]:
    """The configured store, opened for as long as the block runs."""
    container = make_container(settings)
    store: Store = await container.store()
    try:
        yield store
    finally:
        closing = container.shutdown_resources()
        if closing is not None:
            await closing
