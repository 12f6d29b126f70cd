"""The third layer of the composition root: the core's services and the worker side — what the
jobs are built from, the one job list, and the engine that runs it.

A job that enqueues others does it through the engine's JobSubmitter in its context, and whoever
makes work claimable outside the engine fires `work_arrived`: so the engine is built here in one
go, over its finished job list.
"""

from __future__ import annotations

import secrets

from dependency_injector import providers

from core.incoming.confirmations import Confirmations
from core.jobs.breaker import CircuitBreakers, ReopenSites
from core.jobs.engine import Engine, EngineConfig
from core.jobs.registry import JobRegistry
from core.jobs.signals import Signal
from core.lifecycle.retry_policy import RetryPolicy
from core.log_message.cancel_button import CancelButtons
from core.log_message.views import LogViews
from core.media.blob_service import BlobService
from core.media.info_cache import InfoService
from core.media.part_blobs import BlobParts
from core.media.playable import PlayableDownloads
from core.media.sound import SoundFetcher
from core.media.thumbnails import Thumbnails
from core.trust.buttons import SignedButtons
from core.trust.keys import InstallKeys
from core.updater_status import UpdateStatus
from core.url_guard import UrlGuard
from core.work.delivery.albums import Albums
from core.work.delivery.audio import AudioDelivery
from core.work.delivery.document import FileDelivery
from core.work.delivery.outage import TelegramOutages
from core.work.delivery.turns import VideoTurns
from core.work.delivery.video import Delivery
from core.work.download.chat_destination import ChatDestinations
from core.work.download.chat_report import ChatReports
from core.work.download.job import DownloadVideo
from core.work.download.parking import Parking
from core.work.download.replies import Replies
from core.work.download.retries import RetryReporting
from core.work.fenced import FencedMessengers
from core.work.inline import DownloadInline
from core.work.job_types import job_types
from core.work.periodic import SweepBlobs, SweepCaches, UpdateYtDlp
from core.work.rollback.watch import ReleaseWatch
from core.work.rollback.watched import WatchedDownloader
from core.work.site_refusals import SiteRefusals
from entrypoints.node import worker_id
from entrypoints.wiring.adapters import Adapters, send_budgets


class Jobs(Adapters):
    # The providers of the layers below that this one wires with, by name (a class body does not
    # see its base's names); they are the same providers, so a test's override reaches both.
    settings = Adapters.settings
    clock = Adapters.clock
    random = Adapters.random
    store = Adapters.store
    work_notices = Adapters.work_notices
    new_id = Adapters.new_id
    blob_files = Adapters.blob_files
    resolver = Adapters.resolver
    guard_rules = Adapters.guard_rules
    downloader = Adapters.downloader
    formats = Adapters.formats
    prober = Adapters.prober
    transcoder = Adapters.transcoder
    updater = Adapters.updater
    pacing = Adapters.pacing
    metrics = Adapters.metrics
    messenger = Adapters.messenger
    flood = Adapters.flood
    languages = Adapters.languages

    # The signing secret lives in the store: every process sharing it signs alike.
    keys = providers.Singleton(InstallKeys, store, providers.Object(secrets.token_bytes))
    buttons = providers.Singleton(SignedButtons, keys)

    blobs = providers.Singleton(
        BlobService,
        index=store,
        files=blob_files,
        pending=store,
        clock=clock,
        prober=prober,
        max_bytes=settings.provided.max_blob_bytes,
    )
    # Whoever makes work claimable outside the engine (a confirmed prompt, a closed breaker, another
    # process's NOTIFY) wakes the engine's idle workers through this.
    work_arrived = providers.Singleton(Signal)
    breakers = providers.Singleton(CircuitBreakers)
    reopen_sites = providers.Singleton(ReopenSites, breakers, work_arrived.provided.fire)
    update_status = providers.Singleton(UpdateStatus)
    # With the updater, each release is judged by its scrapes and rolled back if it broke an
    # extractor the previous one ran (core.work.rollback).
    release_watch = providers.Selector(
        settings.provided.ytdlp_updates,
        on=providers.Singleton(
            ReleaseWatch,
            record=store,
            updater=updater,
            events=metrics,
            status=update_status,
            clock=clock,
            threshold=settings.provided.ytdlp_rollback_failures,
            on_switched=reopen_sites,
            wake=work_arrived.provided.fire,
        ),
        off=providers.Object(None),
    )
    scraper = providers.Selector(
        settings.provided.ytdlp_updates,
        on=providers.Singleton(WatchedDownloader, downloader, release_watch),
        off=downloader,
    )
    info = providers.Singleton(InfoService, store, scraper, clock)
    # What a job downloads through: the file comes out playable everywhere and within the limit.
    playable = providers.Singleton(
        PlayableDownloads,
        downloader,
        prober,
        transcoder,
        upload_limit_bytes=settings.provided.upload_limit_bytes,
        max_parts=settings.provided.max_parts,
        transcode_timeout=settings.provided.ffmpeg_timeout_seconds,
    )
    # A video no watchable bitrate brings under the limit: cut into parts, each a blob.
    parts = providers.Singleton(
        BlobParts,
        blobs,
        transcoder,
        upload_limit_bytes=settings.provided.upload_limit_bytes,
        max_parts=settings.provided.max_parts,
        cut_timeout=settings.provided.ffmpeg_timeout_seconds,
    )
    guard = providers.Singleton(UrlGuard, resolver, guard_rules)
    log_views = providers.Singleton(
        LogViews, messenger, clock, pacing, providers.Singleton(CancelButtons, buttons)
    )
    """The log messages of the jobs this process runs or has accepted."""
    thumbnails = providers.Singleton(Thumbnails, transcoder, blob_files)
    turns = providers.Singleton(VideoTurns, pacing, clock)

    # The worker side: what the jobs are built from.
    delivery = providers.Singleton(
        Delivery,
        guard=guard,
        info=info,
        blobs=blobs,
        parts=parts,
        albums=providers.Singleton(Albums, blobs=blobs, thumbnails=thumbnails, clock=clock),
        downloader=playable,
        thumbnails=thumbnails,
        clock=clock,
        upload_limit_bytes=settings.provided.upload_limit_bytes,
        max_download_bytes=settings.provided.download_cap_bytes,
        max_parts=settings.provided.max_parts,
        ytdlp_timeout_seconds=settings.provided.ytdlp_timeout_seconds,
    )
    audio_delivery = providers.Singleton(
        AudioDelivery,
        blobs=blobs,
        sounds=providers.Singleton(SoundFetcher, downloader),
        thumbnails=thumbnails,
        clock=clock,
        upload_limit_bytes=settings.provided.upload_limit_bytes,
        ytdlp_timeout_seconds=settings.provided.ytdlp_timeout_seconds,
    )
    replies = providers.Singleton(Replies, messenger, store, languages)
    telegram_outages = providers.Singleton(
        TelegramOutages, clock=clock, random=random, budget_seconds=settings.provided.telegram_outage_seconds
    )
    """The deliveries of this process that wait for Telegram (and /healthz hears why)."""
    # Every Telegram call a job's attempt makes asks its fence first; a send holds the lease for
    # as long as the Telegram adapter lets it take (its deadline, plus the flood waits it makes).
    fenced_messengers = providers.Singleton(
        FencedMessengers,
        messenger,
        providers.Singleton(send_budgets, flood.provided.longest_wait_seconds),
    )
    download = providers.Singleton(
        DownloadVideo,
        delivery=delivery,
        audio=audio_delivery,
        # "Send as file": the bytes as yt-dlp made them, neither converted nor compressed.
        files=providers.Singleton(
            FileDelivery,
            blobs=blobs,
            fetcher=downloader,
            thumbnails=thumbnails,
            clock=clock,
            upload_limit_bytes=settings.provided.upload_limit_bytes,
            ytdlp_timeout_seconds=settings.provided.ytdlp_timeout_seconds,
        ),
        destinations=providers.Singleton(
            ChatDestinations,
            messengers=fenced_messengers,
            parking=providers.Singleton(
                Parking,
                pending=store,
                buttons=buttons,
                clock=clock,
                new_id=new_id,
                max_attempts=settings.provided.max_attempts,
            ),
            replies=replies,
            turns=turns,
            confirm_longer_than_seconds=settings.provided.confirm_longer_than_seconds,
            deliveries=metrics,
            clock=clock,
        ),
        reports=providers.Singleton(
            ChatReports,
            logs=log_views,
            languages=languages,
            upload_limit_bytes=settings.provided.upload_limit_bytes,
        ),
        formats=formats,
        outages=telegram_outages,
        retries=providers.Singleton(RetryReporting, log_views, clock, replies),
    )
    download_inline = providers.Selector(
        settings.provided.inline_mode,
        on=providers.Singleton(
            DownloadInline,
            delivery=delivery,
            audio=audio_delivery,
            messenger=messenger,
            messengers=fenced_messengers,
            turns=turns,
            cache_chat_id=settings.provided.inline_cache_chat_id,
            outages=telegram_outages,
            languages=languages,
        ),
        off=providers.Object(None),
    )
    confirmations = providers.Singleton(
        Confirmations, pending=store, clock=clock, wake=work_arrived.provided.fire, buttons=buttons
    )
    update_ytdlp = providers.Selector(
        settings.provided.ytdlp_updates,
        on=providers.Singleton(
            UpdateYtDlp,
            updater=updater,
            interval_seconds=settings.provided.ytdlp_update_interval_seconds,
            on_updated=reopen_sites,
            follow_rollbacks=release_watch.provided.follow,
            status=update_status,
            clock=clock,
        ),
        off=providers.Object(None),
    )
    site_refusals = providers.Singleton(
        SiteRefusals, clock, metrics, cookies_configured=settings.provided.cookies_configured
    )
    jobs = providers.Singleton(
        job_types,
        download=download,
        inline=download_inline,
        update=update_ytdlp,
        sweep_blobs=providers.Singleton(SweepBlobs, blobs),
        sweep_caches=providers.Singleton(
            SweepCaches,
            info=info,
            handled=store,
            inbox=store,
            expire_prompts=confirmations.provided.expire,
            clock=clock,
        ),
        download_timeout=settings.provided.attempt_timeout_seconds,
        refusals=site_refusals,
        releases=release_watch,
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
        notices=work_notices,
        cancels=store,
    )
