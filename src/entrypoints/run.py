"""`vidrelay run`: the bot process, in one of three roles.

`all` (the default) receives Telegram's updates and runs the jobs; on the PostgreSQL store a
deployment may split them: one `ingest` process turns updates into jobs (Telegram hands a bot's
updates to one poller only, so a second ingest is refused), any number of `worker` processes
run the jobs and never poll Telegram.

Everything is asked of the container (entrypoints/container.py); this module only orders it.
Start order (on a one-process store, `vidrelay run` holds the data folder's lock before this:
see entrypoints/commands.py) → store (and on PostgreSQL, for a process that receives updates, the
ingest lock) (a file that is not ours, or a database that cannot be
reached, exits 2) → Telegram's getMe (asked again with a capped backoff while Telegram does not
answer; a refused token exits 2) → engine (crash attribution of a dead previous process's jobs,
dead-lettering of jobs that killed earlier boots) → the command menus (setMyCommands) → the
inbox's replay (updates kept and not handled before the last stop) → a webhook left behind
deleted → polling (or the webhook server). Stop order on SIGTERM/SIGINT: stop polling (a batch
already fetched finishes its try to reach the inbox; nothing not kept was confirmed) → stop
claiming, let in-flight jobs and updates being handled finish for the grace period (what is left
stays in the store for the next start) → the log messages' last edits (a few seconds) → close. A
polling loop that dies is fatal: logged, exit 1. An ingest whose lock is in doubt stops polling
until it holds the lock again, and goes on (entrypoints/bot/polling.py).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from typing import Literal

from returns.result import Failure, Success

from adapters.telegram.account import token_problem
from core.command_menus import command_menus, translations
from core.jobs.engine import Engine
from core.startup import leave_webhook, publish_menus, reach_chat_service
from entrypoints.bot.polling import AlwaysHeld, PollingLock, poll
from entrypoints.bot.webhook import serve_webhook
from entrypoints.container import Container, shutdown
from entrypoints.listening import ListenRefused
from entrypoints.logs import configure_logging
from entrypoints.monitoring.liveness import Liveness
from entrypoints.monitoring.metrics import start_metrics
from entrypoints.settings import Settings, misspelt_settings
from ports.errors import StoreError

log = logging.getLogger("vidrelay.run")
EXIT_OK, EXIT_FATAL, EXIT_USAGE = 0, 1, 2
LOG_DRAIN_SECONDS = 5.0


Role = Literal["all", "ingest", "worker"]


def run_bot(settings: Settings, *, webhook: bool = False, role: Role = "all") -> int:
    configure_logging(settings.log_format, settings.log_level)
    for misspelt in misspelt_settings():
        log.warning(misspelt)
    if settings.bot_token is None:
        print("vidrelay: VIDRELAY_BOT_TOKEN is required to run the bot", file=sys.stderr)
        return EXIT_USAGE
    if (problem := token_problem(settings.bot_token.get_secret_value())) is not None:
        print(f"vidrelay: VIDRELAY_BOT_TOKEN {problem}", file=sys.stderr)
        return EXIT_USAGE
    if webhook and (not settings.webhook_url or settings.webhook_secret is None):
        print("vidrelay: --webhook needs VIDRELAY_WEBHOOK_URL and VIDRELAY_WEBHOOK_SECRET", file=sys.stderr)
        return EXIT_USAGE
    if role != "all" and settings.single_process_store:
        print(
            f"vidrelay: --role {role} splits a deployment over VIDRELAY_STORE=postgres;"
            f" the {settings.store} store serves one process: use --role all",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        return asyncio.run(serve(settings, webhook=webhook, role=role))
    except ListenRefused as refused:  # a port in use: a setting to fix, like a bad value
        print(f"vidrelay: {refused}", file=sys.stderr)
        return EXIT_USAGE
    except Exception:
        log.exception("fatal error, exiting")
        return EXIT_FATAL


async def serve(settings: Settings, *, webhook: bool = False, role: Role = "all") -> int:
    stop = _stop_on_signals()
    container = Container(settings=settings)
    ingest_lock: PollingLock = AlwaysHeld()
    try:
        try:
            await container.store.async_()
            if role != "worker" and not settings.single_process_store:
                ingest_lock = await container.ingest_lock.async_()
        except StoreError as refused:  # unreachable, not ours, a second ingest: one line, exit 2
            print(f"vidrelay: {refused}", file=sys.stderr)
            return EXIT_USAGE
        await container.blob_files().clear_staging()  # a dead process's partial downloads
        engine = await container.engine.async_()
        observed = await container.observed.async_()
        observed.liveness.expect(updates=role != "worker", jobs=role != "ingest")
        # Up before Telegram is reached: /healthz says why not yet, /metrics counts the errors.
        metrics = await start_metrics(observed, settings.metrics_port, settings.metrics_host)
        try:
            if (refused_code := await _reach_telegram(container, stop)) is not None:
                return refused_code
            if role != "ingest":
                await engine.start()
            damaged = asyncio.create_task(_stop_when_damaged(engine, stop))
            try:
                if role == "worker":
                    await stop.wait()
                    code = EXIT_OK
                else:
                    code = await _receive_updates(container, webhook, stop, observed.liveness, ingest_lock)
                return EXIT_USAGE if engine.damage is not None else code
            finally:
                damaged.cancel()
                observed.liveness.stopped()
                grace = settings.shutdown_grace_seconds
                log.info("stopping: in-flight jobs and updates may finish for %ss", grace)
                lanes = await container.lanes.async_()
                await asyncio.gather(engine.stop(grace), lanes.close(grace))
                # The videos are out; their logs' last edits may still be on their way.
                await (await container.log_views.async_()).drain(LOG_DRAIN_SECONDS)
        finally:
            if metrics is not None:
                await metrics.cleanup()
    finally:
        await shutdown(container)  # the ingest lock, if taken, goes with it


async def _stop_when_damaged(engine: Engine, stop: asyncio.Event) -> None:
    """A store whose data is damaged serves nobody: the process stops (exit 2), as at its open."""
    await engine.until_damaged()
    stop.set()


def _stop_on_signals() -> asyncio.Event:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    return stop


async def _reach_telegram(container: Container, stop: asyncio.Event) -> int | None:
    """None once Telegram answered getMe; else the exit code (a refusal, or a signal while waiting)."""
    reaching = asyncio.ensure_future(
        reach_chat_service(await container.account.async_(), container.clock(), container.random())
    )
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait({reaching, stopping}, return_when=asyncio.FIRST_COMPLETED)
    for task in (reaching, stopping):
        task.cancel()
    if not reaching.done() or reaching.cancelled():
        log.info("signal received while waiting for Telegram: exiting")
        return EXIT_OK
    match reaching.result():
        case Success(name):
            log.info("Telegram answered: the bot is %s", name)
            return None
        case Failure(refused) if refused.unauthorized:
            log.critical(
                "Telegram rejected VIDRELAY_BOT_TOKEN (%s): check the token @BotFather gave",
                refused.describe(),
                extra={"error": refused.describe()},
            )
        case Failure(refused):
            log.critical(
                "the Bot API refused getMe (%s): check VIDRELAY_TELEGRAM_API_URL",
                refused.describe(),
                extra={"error": refused.describe()},
            )
    return EXIT_USAGE


async def _receive_updates(
    container: Container, webhook: bool, stop: asyncio.Event, liveness: Liveness, lock: PollingLock
) -> int:
    """The command menus; the inbox's replay (its updates are older than any Telegram still
    holds); then polling or the webhook server until `stop`."""
    settings, account = container.settings(), await container.account.async_()
    menus = command_menus(settings.admin_user_ids, translations(container.languages()))
    await publish_menus(account, menus)
    receiver = await container.receiver.async_()
    if not await receiver.replay(stop):
        return EXIT_OK
    kinds = (await container.dispatcher.async_()).resolve_used_update_types()
    if webhook:
        bot = await container.bot.async_()
        return await serve_webhook(settings, receiver, bot, kinds, account, container.clock(), stop, liveness)
    await leave_webhook(account)
    return await poll(await container.polling.async_(), kinds, stop, liveness, lock)
