"""The composition root: the one place that decides which adapter serves which port and how the
core services are put together. The bot, the CLI and the tests all build through it; tests
override the adapters they fake and keep the rest of the wiring.

It is built in layers (entrypoints/wiring: the store, the adapters, the worker side), each a
container the next one extends; this top one adds the handler side, the dispatcher and what
/healthz and /metrics read. Stores open asynchronously and only the chosen one is ever opened:
callers resolve the Selector (`await container.engine.async_()`), never `init_resources()`,
which would open every branch.
"""

from __future__ import annotations

from dependency_injector import providers

from core.allowlist import ChatAllowlist
from core.chat_settings.remembered_access import RememberedAccess
from core.chat_settings.service import ChatSettingsService
from core.chat_settings.who_may_change import SettingsAccess
from core.incoming.cancelling import Cancellations
from core.incoming.inline import InlineRequests
from core.incoming.intake.announce import Announcements
from core.incoming.intake.limits import UserLinkLimits
from core.incoming.intake.links import LinkIntake
from core.incoming.known_videos import KnownVideos
from core.incoming.updates.lanes import Lanes
from core.incoming.updates.polling import Polling, long_poll_seconds
from core.incoming.updates.receiving import Receiver
from core.status import StatusQuery
from entrypoints.bot.dispatcher import build_dispatcher
from entrypoints.bot.feeding import DispatcherFeed
from entrypoints.monitoring.liveness import Liveness
from entrypoints.monitoring.metrics import Observed
from entrypoints.wiring.jobs import Jobs
from entrypoints.wiring.stores import shutdown

__all__ = ["Container", "shutdown"]


class Container(Jobs):
    # The providers of the layers below that this one wires with, by name (a class body does not
    # see its base's names); they are the same providers, so a test's override reaches both.
    settings = Jobs.settings
    clock = Jobs.clock
    random = Jobs.random
    store = Jobs.store
    downloader = Jobs.downloader
    metrics = Jobs.metrics
    messenger = Jobs.messenger
    keys = Jobs.keys
    buttons = Jobs.buttons
    blobs = Jobs.blobs
    info = Jobs.info
    guard = Jobs.guard
    log_views = Jobs.log_views
    confirmations = Jobs.confirmations
    update_status = Jobs.update_status
    engine = Jobs.engine
    bot = Jobs.bot
    updates = Jobs.updates
    update_freshness = Jobs.update_freshness
    languages = Jobs.languages

    # The handler side: what the handlers use.
    known_videos = providers.Singleton(KnownVideos, info=info, blobs=blobs)
    announcements = providers.Singleton(
        Announcements,
        log_views,
        store,
        worker_slots=settings.provided.job_concurrency,
        messenger=messenger,
        clock=clock,
        languages=languages,
        # On a store many processes share, the worker may be another process: the message's id
        # travels in the job (announce.py).
        held_back=providers.Selector(
            settings.provided.store_sharing, shared=store, alone=providers.Object(None)
        ),
    )
    intake = providers.Singleton(
        LinkIntake,
        jobs=engine,
        quota=store,
        guard=guard,
        seen=store,
        clock=clock,
        choices=store,
        announcements=announcements,
        limits=providers.Singleton(
            UserLinkLimits,
            quota=store,
            clock=clock,
            hourly=settings.provided.user_hourly_links,
            daily=settings.provided.user_daily_links,
            exempt=settings.provided.admin_user_ids,
        ),
        known=known_videos,
        allowlist=providers.Singleton(ChatAllowlist, settings.provided.allowed_chat_ids, clock),
        max_queued_per_user=settings.provided.max_queued_per_user,
    )
    inline_requests = providers.Selector(
        settings.provided.inline_mode,
        on=providers.Singleton(
            InlineRequests, known=known_videos, jobs=engine, keys=keys, clock=clock, languages=languages
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
        Jobs.telegram_outages,
    )
    chat_access = providers.Singleton(RememberedAccess, providers.Singleton(SettingsAccess, messenger), clock)
    chat_settings = providers.Singleton(
        ChatSettingsService,
        store,
        messenger,
        buttons,
        chat_access,
        clock,
        languages=languages,
        default_ask_seconds=settings.provided.confirm_longer_than_seconds,
    )
    cancellations = providers.Singleton(
        Cancellations,
        cancels=store,
        logs=log_views,
        running=engine,
        access=chat_access,
        buttons=buttons,
        languages=languages,
    )
    dispatcher = providers.Singleton(
        build_dispatcher,
        intake=intake,
        confirmations=confirmations,
        cancellations=cancellations,
        inline=inline_requests,
        status=status,
        chat_settings=chat_settings,
        queue_cap=settings.provided.max_queued_per_user,
        admin_user_ids=settings.provided.admin_user_ids,
    )

    # Updates, durable before Telegram hears they arrived: kept in the store's inbox, then fed to
    # the dispatcher one chat at a time (core/incoming/updates).
    lanes = providers.Singleton(
        Lanes,
        inbox=store,
        handle=providers.Singleton(DispatcherFeed, dispatcher, bot),
        clock=clock,
        random=random,
        give_up_seconds=settings.provided.intake_retry_seconds,
    )
    receiver = providers.Singleton(Receiver, inbox=store, lanes=lanes, clock=clock, random=random)
    polling = providers.Singleton(
        Polling,
        feed=updates,
        receiver=receiver,
        clock=clock,
        random=random,
        poll_seconds=providers.Callable(long_poll_seconds, settings.provided.health_stale_seconds),
    )
