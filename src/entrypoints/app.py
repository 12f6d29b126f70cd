"""Build the core services over a set of adapters: the bootstrap the bot, the demo and tests share."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from core.jobs.breaker import CircuitBreakers
from core.jobs.engine import Engine, EngineConfig
from core.jobs.registry import JobRegistry
from core.lifecycle import RetryPolicy
from core.media.blob_service import BlobService
from core.media.info_cache import InfoService
from core.pipeline.confirm import Confirmations
from core.pipeline.download import DownloadVideo
from core.pipeline.inline import DownloadInline
from core.pipeline.inline_lookup import InlineLookup
from core.pipeline.intake import LinkIntake
from core.pipeline.job_types import job_types
from core.pipeline.periodic import Periodic, UpdateStatus
from core.pipeline.services import PipelineConfig, Services
from core.pipeline.url_guard import UrlGuard
from entrypoints.settings import Settings
from ports.blobs import BlobFiles
from ports.clock import Clock
from ports.media import Downloader, MediaProber, Updater
from ports.messenger import Messenger
from ports.net import HostResolver
from ports.store import Store


@dataclass(frozen=True, slots=True)
class Adapters:
    store: Store
    messenger: Messenger
    downloader: Downloader
    prober: MediaProber
    files: BlobFiles
    resolver: HostResolver
    clock: Clock
    random: Callable[[], float]
    updater: Updater | None = None


@dataclass(frozen=True, slots=True)
class App:
    engine: Engine
    intake: LinkIntake
    confirmations: Confirmations
    inline: InlineLookup | None
    blobs: BlobService
    adapters: Adapters
    settings: Settings
    update_status: UpdateStatus


def build_app(settings: Settings, adapters: Adapters) -> App:
    registry = JobRegistry()
    engine = Engine(
        adapters.store,
        adapters.clock,
        registry,
        EngineConfig(
            concurrency=settings.job_concurrency,
            max_attempts=settings.max_attempts,
            retry=RetryPolicy(base_seconds=settings.retry_base_seconds),
            recover_leases_on_boot=settings.store != "postgres",
        ),
        adapters.random,
        worker_id=f"{os.uname().nodename}:{os.getpid()}",
        breakers=CircuitBreakers(),
    )
    blobs = BlobService(
        adapters.store,
        adapters.files,
        adapters.store,
        adapters.clock,
        adapters.prober,
        max_bytes=settings.max_blob_bytes,
    )
    info = InfoService(adapters.store, adapters.downloader, adapters.clock)
    guard = UrlGuard(adapters.resolver, settings.allow_private_urls)
    services = Services(
        info=info,
        blobs=blobs,
        downloader=adapters.downloader,
        messenger=adapters.messenger,
        pending=adapters.store,
        handled=adapters.store,
        guard=guard,
        clock=adapters.clock,
        jobs=engine,
        new_id=lambda: uuid.uuid4().hex[:16],
    )
    config = PipelineConfig(
        upload_limit_bytes=settings.upload_limit_bytes,
        confirm_longer_than_seconds=settings.confirm_longer_than_seconds,
        ytdlp_timeout_seconds=settings.ytdlp_timeout_seconds,
        max_attempts=settings.max_attempts,
    )
    download = DownloadVideo(services, config)
    cache_chat = settings.inline_cache_chat_id
    inline_job = (
        DownloadInline(services, cache_chat, settings.upload_limit_bytes, settings.ytdlp_timeout_seconds)
        if cache_chat is not None
        else None
    )
    confirmations = Confirmations(adapters.store, adapters.clock, engine.wake)
    periodic = Periodic(
        adapters.updater,
        settings.ytdlp_update_interval_seconds,
        engine.close_breakers,
        blobs,
        info,
        adapters.store,
        confirmations,
        adapters.clock,
    )
    # A whole attempt: a scrape and a download, each with its own yt-dlp deadline, plus the upload.
    attempt_timeout = 2 * settings.ytdlp_timeout_seconds + 300
    for job_type in job_types(download, inline_job, periodic, attempt_timeout):
        registry.register(job_type)
    intake = LinkIntake(
        engine,
        adapters.store,
        guard,
        max_queued_per_user=settings.max_queued_per_user,
        allowed_chat_ids=settings.allowed_chat_ids,
    )
    inline = InlineLookup(services) if cache_chat is not None else None
    return App(engine, intake, confirmations, inline, blobs, adapters, settings, periodic.update_status)
