"""The composition root builds the real app: its exact job list, the store the settings choose,
and a dispatcher whose handlers find every service they ask for."""

from __future__ import annotations

import inspect
import subprocess
import sys
from collections.abc import Collection, Iterator
from pathlib import Path

from aiogram import Router
from dependency_injector import providers
from returns.result import Failure, Success

from adapters.memory.store import MemoryStore
from adapters.net.forward_proxy import ForwardProxy
from adapters.sqlite.store import SqliteStore
from core.incoming.confirmations import Decision
from core.work.rollback.watched import WatchedDownloader
from entrypoints.bot.feeding import PER_UPDATE
from entrypoints.container import Container, shutdown
from entrypoints.settings import load_settings
from entrypoints.wiring.stores import open_store
from ports.jobs import NewJob
from ports.media import UpdateOutcome, Updater
from ports.pending import PendingRequest
from tests.support.clock import VirtualClock
from tests.support.world import faked_container


class StaleUpdater(Updater):
    async def update(self, avoid: Collection[str] = ()) -> UpdateOutcome:
        return UpdateOutcome(changed=False, version_before="2026.01.01", version_after="2026.01.01")

    async def current_version(self) -> str | None:
        return "2026.01.01"


def container(tmp_path: Path, clock: VirtualClock, **env: str) -> Container:
    built = faked_container(clock, tmp_path, **env)
    built.ytdlp_updater.override(providers.Object(StaleUpdater()))
    return built


def test_the_registered_job_list_is_exact(tmp_path: Path, clock: VirtualClock) -> None:
    full = container(tmp_path, clock, VIDRELAY_INLINE_CACHE_CHAT_ID="-100")
    assert full.engine().job_names() == [
        "download_video",
        "sweep_blobs",
        "sweep_caches",
        "download_inline",
        "update_ytdlp",
    ]
    assert full.inline_requests() is not None
    assert isinstance(full.scraper(), WatchedDownloader)  # releases are judged by their scrapes
    bare = container(tmp_path, clock, VIDRELAY_YTDLP_UPDATE_INTERVAL_SECONDS="0")
    assert bare.engine().job_names() == ["download_video", "sweep_blobs", "sweep_caches"]
    assert (bare.inline_requests(), bare.updater(), bare.release_watch()) == (None, None, None)


async def test_every_service_shares_one_engine_and_one_store(tmp_path: Path, clock: VirtualClock) -> None:
    built = container(tmp_path, clock)
    engine, store = built.engine(), built.store()
    assert not hasattr(built, "bare_engine")  # one phase: the engine is built with its job list
    assert built.engine() is engine
    assert built.download() is built.download()
    # A prompt parked in the store is what a press adopts, into the queue the engine claims from.
    parked = PendingRequest("p1", -1, 7, 1, engine.new_job("download_video", {}), None, clock.now())
    await store.park(parked)
    assert await built.confirmations().confirm("p1") is Decision.CONFIRMED
    assert [job.name for job in await store.list_jobs()] == ["download_video"]


def _handlers(router: Router) -> Iterator[object]:
    for observer in router.observers.values():
        yield from (handler.callback for handler in observer.handlers)
    for child in router.sub_routers:
        yield from _handlers(child)


def test_handlers_ask_only_for_what_the_dispatcher_provides(tmp_path: Path, clock: VirtualClock) -> None:
    dispatcher = container(tmp_path, clock, VIDRELAY_INLINE_CACHE_CHAT_ID="-100").dispatcher()
    provided = set(dispatcher.workflow_data)
    assert provided == {
        "intake",
        "confirmations",
        "cancellations",
        "inline",
        "status",
        "chat_settings",
        "queue_cap",
        "admin_user_ids",
    }
    asked: set[str] = set()
    [ours] = dispatcher.sub_routers  # the dispatcher's own update handler takes **kwargs
    for callback in _handlers(ours):
        assert callable(callback)
        _event, *services = inspect.signature(callback).parameters
        asked |= set(services)
    assert asked == provided | PER_UPDATE


async def test_the_container_opens_the_store_the_settings_choose(tmp_path: Path) -> None:
    memory_settings = load_settings({"VIDRELAY_STORE": "memory", "VIDRELAY_DATA_DIR": str(tmp_path)})
    async with open_store(memory_settings) as memory:
        assert isinstance(memory.store, MemoryStore)
    assert not (tmp_path / "vidrelay.db").exists()  # the other branch of the Selector stayed shut
    sqlite_settings = load_settings({"VIDRELAY_STORE": "sqlite", "VIDRELAY_DATA_DIR": str(tmp_path)})
    async with open_store(sqlite_settings) as sqlite:
        assert isinstance(sqlite.store, SqliteStore)
        await sqlite.store.enqueue(NewJob("download_video", {}, 3), 0.0)
    assert (tmp_path / "vidrelay.db").exists()
    async with open_store(sqlite_settings) as reopened:
        assert (await reopened.store.counts()).waiting == 1
    # The container opens it through the same path: the Selector it extends.
    built = Container(settings=sqlite_settings)
    try:
        assert (await (await built.store.async_()).counts()).waiting == 1
    finally:
        await shutdown(built)


async def test_the_bot_process_resolves_through_the_async_store(tmp_path: Path) -> None:
    settings = load_settings({"VIDRELAY_DATA_DIR": str(tmp_path), "VIDRELAY_BOT_TOKEN": "123:abc"})
    built = Container(settings=settings)
    try:
        engine = await built.engine.async_()
        dispatcher = await built.dispatcher.async_()
        assert dispatcher.workflow_data["intake"] is await built.intake.async_()
        assert isinstance(await built.store.async_(), SqliteStore)
        assert "update_ytdlp" in engine.job_names()
    finally:
        closing = built.shutdown_resources()
        if closing is not None:
            await closing


async def test_the_tools_go_through_the_guards_proxy_which_stops_with_the_container(tmp_path: Path) -> None:
    settings = load_settings(
        {"VIDRELAY_DATA_DIR": str(tmp_path), "VIDRELAY_PRIVATE_URL_ALLOWLIST": "127.0.0.1:8080"}
    )
    built = Container(settings=settings)
    proxy = await built.egress_proxy.async_()
    assert isinstance(proxy, ForwardProxy)
    assert (await built.downloader.async_()).proxy is proxy
    await proxy.session()  # the first yt-dlp run starts it
    assert proxy.listening
    await shutdown(built)
    assert not proxy.listening


async def test_the_link_check_honours_the_allowlist_on_its_port(tmp_path: Path) -> None:
    settings = load_settings({"VIDRELAY_PRIVATE_URL_ALLOWLIST": "127.0.0.1:8080"})
    guard = Container(settings=settings).guard()
    assert await guard.check("http://127.0.0.1:8080/v.mp4") == Success(None)
    assert await guard.check("http://127.0.0.1:8081/v.mp4") == Failure(
        "the link leads to a private address (127.0.0.1)"
    )


def test_with_the_guard_off_there_is_no_proxy_and_every_address_passes(tmp_path: Path) -> None:
    built = Container(settings=load_settings({"VIDRELAY_ALLOW_PRIVATE_URLS": "true"}))
    assert built.egress_proxy() is None
    assert built.guard_rules().check("10.0.0.5", 80, ["10.0.0.5"]) == Success(None)


def test_the_store_tools_open_the_store_without_the_telegram_stack() -> None:
    """`vidrelay jobs` counts rows through the same store path as the bot, without paying for
    aiogram or yt-dlp first (an operator runs it when something is already wrong)."""
    probe = (
        "import sys, entrypoints.job_tools, entrypoints.wiring.stores;"
        "print(sorted(m for m in ('aiogram', 'yt_dlp', 'entrypoints.container') if m in sys.modules))"
    )
    ran = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert ran.stdout.strip() == "[]"
