"""The second layer of the composition root: everything outside the core, each adapter built
here and nowhere else (tests override these, on the top container, with what we do not own)."""

from __future__ import annotations

import random
import uuid
from collections.abc import AsyncIterator
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

from aiogram import Bot
from dependency_injector import providers
from prometheus_client import CollectorRegistry
from pydantic import SecretStr

from adapters.babel.languages import BabelLanguages
from adapters.ffmpeg.prober import FfprobeProber
from adapters.ffmpeg.transcoder import FfmpegTranscoder
from adapters.filesystem.blob_files import LocalBlobFiles
from adapters.net.direct import DirectProxy
from adapters.net.forward_proxy import ForwardProxy
from adapters.net.resolver import SystemResolver
from adapters.net.upstream import UpstreamProxy
from adapters.prometheus.metrics import PrometheusMetrics
from adapters.telegram.account import TelegramAccount
from adapters.telegram.flood import FloodControl
from adapters.telegram.messenger import VIDEO_REQUEST_TIMEOUT_SECONDS, TelegramMessenger
from adapters.telegram.session import REQUEST_TIMEOUT_SECONDS, make_bot
from adapters.telegram.updates import TelegramUpdates
from adapters.ytdlp.downloader import YtDlpDownloader
from adapters.ytdlp.heights import YtDlpFormatChoice
from adapters.ytdlp.locator import YtDlpLocator
from adapters.ytdlp.updater import YtDlpUpdater
from core.texts.languages import CODES
from core.update_freshness import UpdateFreshness
from core.url_policy import GuardRules
from core.work.fenced import SendBudgets
from entrypoints.settings import Settings
from entrypoints.wiring.stores import Stores, postgres_limits
from ports.clock import Clock
from ports.net import HostResolver
from ports.telemetry import ApiEvents, UpdateEvents

if TYPE_CHECKING:
    from adapters.postgres.ingest_lock import IngestLock


async def _egress_proxy(
    rules: GuardRules, resolver: HostResolver, upstream_url: str | None
) -> AsyncIterator[ForwardProxy]:
    upstream = UpstreamProxy(upstream_url) if upstream_url is not None else None
    proxy = ForwardProxy(rules, resolver, upstream=upstream)  # it listens from the first yt-dlp run
    try:
        yield proxy
    finally:
        await proxy.aclose()


async def _stopped_at_close(downloader: YtDlpDownloader) -> AsyncIterator[YtDlpDownloader]:
    """At shutdown its warm fork servers are stopped and reaped by the bot (they kill what they
    forked first), not left to notice the bot's end after it exited."""
    try:
        yield downloader
    finally:
        await downloader.shutdown()


async def bot_session(
    token: SecretStr | None,
    api_url: str,
    local_mode: bool,
    flood: FloodControl,
    events: ApiEvents | None = None,
    updates: UpdateEvents | None = None,
) -> AsyncIterator[Bot]:
    if token is None:
        raise RuntimeError("the bot was asked for without VIDRELAY_BOT_TOKEN; `vidrelay run` checks it first")
    bot = make_bot(token.get_secret_value(), api_url, local_mode, flood=flood, events=events, updates=updates)
    try:
        yield bot
    finally:
        await bot.session.close()


async def _ingest_lock(settings: Settings, clock: Clock) -> AsyncIterator[IngestLock]:
    """Kept from the moment it is asked for until the container shuts down: while it is in doubt
    the ingest does not poll (entrypoints/bot/polling.py)."""
    from adapters.postgres.ingest_lock import IngestLock  # noqa: PLC0415 - the `postgres` extra

    lock = await IngestLock.take(settings.database_dsn, postgres_limits(settings), clock=clock)
    try:
        yield lock
    finally:
        await lock.release()


def translations_folder() -> Path:
    """The text catalog's translations, package data of core.texts (`<code>.po`)."""
    return Path(str(files("core.texts") / "translations"))


def _short_id() -> str:
    return uuid.uuid4().hex[:16]


def send_budgets(flood_wait_seconds: float) -> SendBudgets:
    """How long a send may take through this Telegram adapter: its request deadline, plus the
    waits its flood control may make before the request goes out."""
    return SendBudgets(
        upload_seconds=VIDEO_REQUEST_TIMEOUT_SECONDS + flood_wait_seconds,
        call_seconds=REQUEST_TIMEOUT_SECONDS + flood_wait_seconds,
    )


class Adapters(Stores):
    # The providers of the layers below that this one wires with, by name (a class body does not
    # see its base's names); they are the same providers, so a test's override reaches both.
    settings = Stores.settings
    clock = Stores.clock
    store = Stores.store

    random = providers.Object(random.random)
    new_id = providers.Object(_short_id)
    """Ids for parked confirmations."""
    # Work announced by other processes wakes this one's idle workers: PostgreSQL's other
    # processes by NOTIFY, SQLite's (`vidrelay jobs retry`) through the file's data_version.
    work_notices = providers.Selector(
        settings.provided.store, postgres=store, sqlite=store, memory=providers.Object(None)
    )
    ingest_lock = providers.Resource(_ingest_lock, settings, clock)
    """PostgreSQL only: the one process per database that receives Telegram's updates."""
    languages = providers.Singleton(BabelLanguages, providers.Callable(translations_folder), CODES)
    """The catalogs the bot speaks, read once at start."""

    blob_files = providers.Singleton(LocalBlobFiles, settings.provided.data_dir)
    locator = providers.Singleton(YtDlpLocator, settings.provided.data_dir)
    resolver = providers.Singleton(SystemResolver)
    guard_rules = providers.Singleton(
        GuardRules,
        settings.provided.private_url_endpoints,
        allow_private=settings.provided.allow_private_urls,
    )
    egress_proxy = providers.Selector(
        settings.provided.egress_guard,
        on=providers.Resource(_egress_proxy, guard_rules, resolver, settings.provided.proxy_url),
        direct=providers.Singleton(DirectProxy, settings.provided.proxy_url),
        off=providers.Object(None),
    )
    downloader = providers.Resource(
        _stopped_at_close,
        providers.Factory(
            YtDlpDownloader,
            max_filesize_bytes=settings.provided.upload_limit_bytes,
            concurrency=settings.provided.ytdlp_concurrency,
            locator=locator,
            warm=settings.provided.ytdlp_warm,
            warm_idle_seconds=settings.provided.ytdlp_warm_idle_seconds,
            proxy=egress_proxy,
            max_download_bytes=settings.provided.download_cap_bytes,
            cookies_file=settings.provided.ytdlp_cookies_file,
        ),
    )
    formats = providers.Singleton(
        YtDlpFormatChoice,
        max_filesize_bytes=settings.provided.upload_limit_bytes,
        max_download_bytes=settings.provided.download_cap_bytes,
    )
    """A smaller format, for the chats that chose a quality."""
    prober = providers.Singleton(FfprobeProber)
    transcoder = providers.Singleton(FfmpegTranscoder)
    ytdlp_updater = providers.Singleton(
        YtDlpUpdater,
        settings.provided.data_dir,
        channel=settings.provided.ytdlp_channel,
        pip_args=settings.provided.ytdlp_pip_args.split.call(),
    )
    updater = providers.Selector(
        settings.provided.ytdlp_updates, on=ytdlp_updater, off=providers.Object(None)
    )

    flood = providers.Singleton(FloodControl, clock)
    """Every Bot API call's pacing; the core asks its pacer (`pacing`) before it sends."""
    pacing = flood.provided.pacer
    # One registry per container (so per process, and per test): never prometheus' global default.
    metrics = providers.Singleton(PrometheusMetrics, providers.Singleton(CollectorRegistry))
    update_freshness = providers.Singleton(
        UpdateFreshness, clock, stale_seconds=settings.provided.health_stale_seconds
    )
    """When getUpdates last answered: /healthz's word on whether updates still come in."""
    bot = providers.Resource(
        bot_session,
        settings.provided.bot_token,
        settings.provided.telegram_api_url,
        settings.provided.telegram_local_mode,
        flood,
        metrics,
        update_freshness,
    )
    messenger = providers.Singleton(TelegramMessenger, bot, settings.provided.telegram_local_mode)
    account = providers.Singleton(TelegramAccount, bot)
    updates = providers.Singleton(TelegramUpdates, bot)
    """Telegram's getUpdates long poll, for the ingest's polling."""
