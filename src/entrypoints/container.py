"""The composition root: the one place that decides which adapter serves which port and how the
core services are put together. The bot, the CLI and the tests all build through it; tests
override the adapters they fake and keep the rest of the wiring.

Stores open asynchronously and only the chosen one is ever opened: callers resolve the Selector
(`await container.engine.async_()`), never `init_resources()`, which would open every branch.
"""

from __future__ import annotations

import random
import secrets
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiogram import Bot
from dependency_injector import containers, providers
from prometheus_client import CollectorRegistry
from pydantic import SecretStr

from adapters.ffmpeg.prober import FfprobeProber
from adapters.ffmpeg.transcoder import FfmpegTranscoder
from adapters.filesystem.blob_files import LocalBlobFiles
from adapters.net.direct import DirectProxy
from adapters.net.forward_proxy import ForwardProxy
from adapters.net.resolver import SystemResolver
from adapters.net.upstream import UpstreamProxy
from adapters.prometheus.metrics import PrometheusMetrics
from adapters.system.clock import SystemClock
from adapters.telegram.flood import FloodControl
from adapters.telegram.messenger import TelegramMessenger
from adapters.telegram.session import make_bot
from adapters.ytdlp.downloader import YtDlpDownloader
from adapters.ytdlp.heights import YtDlpFormatChoice
from adapters.ytdlp.locator import YtDlpLocator
from adapters.ytdlp.updater import YtDlpUpdater
from core.allowlist import ChatAllowlist
from core.chat.log_views import LogViews
from core.chat_settings.access import RememberedAccess
from core.chat_settings.service import ChatSettingsService
from core.jobs.breaker import CircuitBreakers, ReopenSites
from core.jobs.engine import Engine, EngineConfig
from core.jobs.registry import JobRegistry
from core.jobs.signals import Signal
from core.lifecycle.retry_policy import RetryPolicy
from core.media.blob_service import BlobService
from core.media.info_cache import InfoService
from core.media.playable import PlayableDownloads
from core.media.thumbnails import Thumbnails
from core.pipeline.confirm import Confirmations
from core.pipeline.download import DownloadVideo
from core.pipeline.inline import DownloadInline
from core.pipeline.inline_lookup import InlineLookup
from core.pipeline.inline_requests import InlineRequests
from core.pipeline.intake import LinkIntake
from core.pipeline.intake_announce import Announcements
from core.pipeline.intake_retry import EnqueueRetries
from core.pipeline.job_types import job_types
from core.pipeline.periodic import Periodic, UpdateStatus
from core.pipeline.services import PipelineConfig, Services
from core.pipeline.turns import VideoTurns
from core.pipeline.url_guard import UrlGuard
from core.status import StatusQuery
from core.trust.buttons import SignedButtons
from core.trust.keys import InstallKeys
from core.trust.settings_access import SettingsAccess
from core.update_freshness import UpdateFreshness
from core.url_policy import GuardRules
from entrypoints.bot.dispatcher import build_dispatcher
from entrypoints.bot.health import Liveness
from entrypoints.bot.metrics import Observed
from entrypoints.node import worker_id
from entrypoints.settings import Settings
from entrypoints.stores import memory_store, postgres_store, sqlite_store
from ports.net import HostResolver
from ports.store import Store
from ports.telemetry import ApiEvents, UpdateEvents


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


async def _bot(
    token: SecretStr | None,
    api_url: str,
    local_mode: bool,
    flood: FloodControl,
    events: ApiEvents,
    updates: UpdateEvents,
) -> AsyncIterator[Bot]:
    if token is None:
        raise RuntimeError("the bot was asked for without VIDRELAY_BOT_TOKEN; `vidrelay run` checks it first")
    bot = make_bot(token.get_secret_value(), api_url, local_mode, flood=flood, events=events, updates=updates)
    try:
        yield bot
    finally:
        await bot.session.close()


def _short_id() -> str:
    return uuid.uuid4().hex[:16]


class Container(containers.DeclarativeContainer):
    settings = providers.Dependency(instance_of=Settings)

    # Adapters: everything a test may swap for a fake.
    clock = providers.Singleton(SystemClock)
    random = providers.Object(random.random)
    store = providers.Selector(
        settings.provided.store,
        memory=providers.Resource(memory_store),
        sqlite=providers.Resource(
            sqlite_store,
            path=settings.provided.sqlite_path,
            synchronous=settings.provided.sqlite_synchronous,
            clock=clock,
        ),
        postgres=providers.Resource(
            postgres_store,
            settings.provided.database_dsn,
            settings.provided.data_dir,
            settings.provided.database_pool_size,
            clock,
        ),
    )
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
    bot = providers.Resource(
        _bot,
        settings.provided.bot_token,
        settings.provided.telegram_api_url,
        settings.provided.telegram_local_mode,
        flood,
        metrics,
        update_freshness,
    )
    messenger = providers.Singleton(TelegramMessenger, bot, settings.provided.telegram_local_mode)
    new_id = providers.Object(_short_id)

    # The signing secret lives in the store: every process sharing it signs alike.
    keys = providers.Singleton(InstallKeys, store, providers.Object(secrets.token_bytes))
    buttons = providers.Singleton(SignedButtons, keys)

    blobs = providers.Singleton(
        BlobService, store, blob_files, store, clock, prober, max_bytes=settings.provided.max_blob_bytes
    )
    info = providers.Singleton(InfoService, store, downloader, clock)
    # What a job downloads through: the file comes out playable everywhere and within the limit.
    playable = providers.Singleton(
        PlayableDownloads,
        downloader,
        prober,
        transcoder,
        upload_limit_bytes=settings.provided.upload_limit_bytes,
        transcode_timeout=settings.provided.ffmpeg_timeout_seconds,
    )
    guard = providers.Singleton(UrlGuard, resolver, guard_rules)
    log_views = providers.Singleton(LogViews, messenger, clock, pacing)
    services = providers.Singleton(
        Services,
        info=info,
        blobs=blobs,
        downloader=playable,
        messenger=messenger,
        pending=store,
        handled=store,
        guard=guard,
        clock=clock,
        new_id=new_id,
        buttons=buttons,
        audio=downloader,
        formats=providers.Singleton(
            YtDlpFormatChoice,
            max_filesize_bytes=settings.provided.upload_limit_bytes,
            max_download_bytes=settings.provided.download_cap_bytes,
        ),
        thumbnails=providers.Singleton(Thumbnails, transcoder, blob_files),
        logs=log_views,
        turns=providers.Singleton(VideoTurns, pacing, clock),
        deliveries=metrics,
    )
    pipeline_config = providers.Singleton(
        PipelineConfig,
        upload_limit_bytes=settings.provided.upload_limit_bytes,
        confirm_longer_than_seconds=settings.provided.confirm_longer_than_seconds,
        ytdlp_timeout_seconds=settings.provided.ytdlp_timeout_seconds,
        max_attempts=settings.provided.max_attempts,
        max_download_bytes=settings.provided.download_cap_bytes,
    )
    download = providers.Singleton(DownloadVideo, services, pipeline_config)
    download_inline = providers.Selector(
        settings.provided.inline_mode,
        on=providers.Singleton(
            DownloadInline, services, settings.provided.inline_cache_chat_id, pipeline_config
        ),
        off=providers.Object(None),
    )
    # Whoever makes work claimable outside the engine (a confirmed prompt, a closed breaker, another
    # process's NOTIFY) wakes the engine's idle workers through this.
    work_arrived = providers.Singleton(Signal)
    breakers = providers.Singleton(CircuitBreakers)
    confirmations = providers.Singleton(Confirmations, store, clock, work_arrived.provided.fire, buttons)
    update_status = providers.Singleton(UpdateStatus)
    periodic = providers.Singleton(
        Periodic,
        updater,
        settings.provided.ytdlp_update_interval_seconds,
        providers.Singleton(ReopenSites, breakers, work_arrived.provided.fire),
        blobs,
        info,
        store,
        confirmations,
        clock,
        update_status,
    )
    jobs = providers.Singleton(
        job_types, download, download_inline, periodic, settings.provided.attempt_timeout_seconds
    )
    # The job engine, over the job list above: a job that enqueues others does it through the
    # engine's JobSubmitter in its context, so nothing here waits for the engine to exist. SQLite
    # and memory serve one process (`vidrelay run` holds the data folder's instance lock), so
    # EngineConfig's sole_instance is on there: at boot, every other holder of a row is dead, and
    # its rows come back through the crash-attribution rule. On PostgreSQL other workers are
    # alive: their rows come back only through the dead-holder rule.
    engine = providers.Singleton(
        Engine,
        store,
        clock,
        providers.Singleton(JobRegistry, jobs),
        providers.Singleton(
            EngineConfig,
            concurrency=settings.provided.job_concurrency,
            max_attempts=settings.provided.max_attempts,
            retry=providers.Singleton(RetryPolicy, base_seconds=settings.provided.retry_base_seconds),
            lease_seconds=settings.provided.lease_seconds,
            heartbeat_seconds=settings.provided.heartbeat_seconds,
            sole_instance=settings.provided.single_process_store,
        ),
        random,
        providers.Singleton(worker_id),
        breakers=breakers,
        events=metrics,
        wake=work_arrived,
    )

    # What the handlers use.
    announcements = providers.Singleton(
        Announcements, log_views, store, worker_slots=settings.provided.job_concurrency
    )
    enqueue_retries = providers.Singleton(
        EnqueueRetries,
        engine,
        announcements,
        messenger,
        clock,
        random,
        budget_seconds=settings.provided.intake_retry_seconds,
    )
    intake = providers.Singleton(
        LinkIntake,
        engine,
        store,
        guard,
        store,
        clock,
        store,
        enqueue_retries,
        announcements,
        providers.Singleton(ChatAllowlist, settings.provided.allowed_chat_ids, clock),
        max_queued_per_user=settings.provided.max_queued_per_user,
    )
    inline_requests = providers.Selector(
        settings.provided.inline_mode,
        on=providers.Singleton(
            InlineRequests, providers.Singleton(InlineLookup, services), engine, keys, clock
        ),
        off=providers.Object(None),
    )
    status = providers.Singleton(StatusQuery, store, downloader, engine, update_status, clock)
    liveness = providers.Singleton(Liveness, update_freshness)
    observed = providers.Singleton(
        Observed,
        status,
        metrics,
        engine,
        engine.provided.breakers,
        update_status.provided.outcomes,
        clock,
        liveness,
    )
    chat_settings = providers.Singleton(
        ChatSettingsService,
        store,
        messenger,
        buttons,
        providers.Singleton(RememberedAccess, providers.Singleton(SettingsAccess, messenger), clock),
        clock,
        default_ask_seconds=settings.provided.confirm_longer_than_seconds,
    )
    dispatcher = providers.Singleton(
        build_dispatcher,
        intake=intake,
        confirmations=confirmations,
        inline=inline_requests,
        status=status,
        chat_settings=chat_settings,
        queue_cap=settings.provided.max_queued_per_user,
        admin_user_ids=settings.provided.admin_user_ids,
    )


@asynccontextmanager
async def open_store(settings: Settings) -> AsyncIterator[Store]:
    """The configured store, opened for as long as the block runs (the CLI's job tools)."""
    container = Container(settings=settings)
    store: Store = await container.store.async_()
    try:
        yield store
    finally:
        await shutdown(container)


async def shutdown(container: Container) -> None:
    """Close what was opened, and only that: resources never resolved were never started."""
    closing = container.shutdown_resources()
    if closing is not None:
        await closing
