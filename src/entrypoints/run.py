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
dead-lettering of jobs that killed earlier boots) → the inbox's replay (updates kept and not
handled before the last stop) → polling or the webhook server. Stop order on SIGTERM/SIGINT:
stop polling (a batch already fetched finishes its try to reach the inbox; nothing not kept was
confirmed) → stop claiming, let in-flight jobs and updates being handled finish for the grace
period (what is left stays in the store for the next start) → the log messages' last edits (a few
seconds) → close. A polling loop that dies is fatal: logged, exit 1.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from typing import Literal

from aiogram import Bot
from aiohttp import web
from returns.result import Failure, Success

from adapters.telegram.account import token_problem
from core.incoming.updates.polling import Polling
from core.incoming.updates.receiving import Receiver
from core.startup import reach_chat_service
from entrypoints.bot.webhook import webhook_app
from entrypoints.container import Container, shutdown
from entrypoints.logs import configure_logging
from entrypoints.monitoring.health import Liveness
from entrypoints.monitoring.metrics import start_metrics
from entrypoints.settings import Settings
from ports.errors import StoreError

log = logging.getLogger("vidrelay.run")
EXIT_OK, EXIT_FATAL, EXIT_USAGE = 0, 1, 2
LOG_DRAIN_SECONDS = 5.0


Role = Literal["all", "ingest", "worker"]


def run_bot(settings: Settings, *, webhook: bool = False, role: Role = "all") -> int:
    configure_logging(settings.log_format, settings.log_level)
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
    except Exception:
        log.exception("fatal error, exiting")
        return EXIT_FATAL


async def serve(settings: Settings, *, webhook: bool = False, role: Role = "all") -> int:
    stop = _stop_on_signals()
    container = Container(settings=settings)
    lost_lock: asyncio.Event | None = None
    watcher: asyncio.Task[None] | None = None
    try:
        try:
            await container.store.async_()
            if role != "worker" and not settings.single_process_store:
                lost_lock = (await container.ingest_lock.async_()).lost
                watcher = asyncio.create_task(_stop_when_lost(lost_lock, stop))
        except StoreError as refused:  # unreachable, not ours, a second ingest: one line, exit 2
            print(f"vidrelay: {refused}", file=sys.stderr)
            return EXIT_USAGE
        await container.blob_files().clear_staging()  # a dead process's partial downloads
        engine = await container.engine.async_()
        observed = await container.observed.async_()
        observed.liveness.expect(updates=role != "worker", jobs=role != "ingest")
        # Up before Telegram is reached: /healthz says why not yet, /metrics counts the errors.
        metrics = await start_metrics(observed, settings.metrics_port)
        try:
            if (refused_code := await _reach_telegram(container, stop)) is not None:
                return refused_code
            if role != "ingest":
                await engine.start()
            try:
                if role == "worker":
                    await stop.wait()
                    return EXIT_OK
                code = await _receive_updates(container, webhook, stop, observed.liveness)
                return EXIT_FATAL if lost_lock is not None and lost_lock.is_set() else code
            finally:
                observed.liveness.stopped()
                grace = settings.shutdown_grace_seconds
                log.warning("stopping: in-flight jobs and updates may finish for %ss", grace)
                lanes = await container.lanes.async_()
                await asyncio.gather(engine.stop(grace), lanes.close(grace))
                # The videos are out; their logs' last edits may still be on their way.
                await (await container.log_views.async_()).drain(LOG_DRAIN_SECONDS)
        finally:
            if metrics is not None:
                await metrics.cleanup()
    finally:
        if watcher is not None:
            watcher.cancel()
        await shutdown(container)  # the ingest lock, if taken, goes with it


async def _stop_when_lost(lost_lock: asyncio.Event, stop: asyncio.Event) -> None:
    """From the moment the lock's connection ends another ingest may start, and two pollers of
    one bot must never run: this one stops (exit 1; a supervisor restarts it to queue up again)."""
    await lost_lock.wait()
    log.critical("the connection holding the ingest lock ended: stopping")
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
        log.warning("signal received while waiting for Telegram: exiting")
        return EXIT_OK
    match reaching.result():
        case Success(name):
            log.info("Telegram answered: the bot is %s", name)
            return None
        case Failure(refused) if refused.unauthorized:
            log.critical(
                "Telegram rejected VIDRELAY_BOT_TOKEN (%s): check the token @BotFather gave",
                refused.describe(),
            )
        case Failure(refused):
            log.critical(
                "the Bot API refused getMe (%s): check VIDRELAY_TELEGRAM_API_URL", refused.describe()
            )
    return EXIT_USAGE


async def _receive_updates(
    container: Container, webhook: bool, stop: asyncio.Event, liveness: Liveness
) -> int:
    """The inbox's replay first (its updates are older than any Telegram still holds), then
    polling or the webhook server until `stop`."""
    receiver = await container.receiver.async_()
    if not await receiver.replay(stop):
        return EXIT_OK
    kinds = (await container.dispatcher.async_()).resolve_used_update_types()
    if webhook:
        bot = await container.bot.async_()
        return await _webhook(container.settings(), receiver, bot, kinds, stop, liveness)
    return await _poll(await container.polling.async_(), kinds, stop, liveness)


async def _poll(polling: Polling, kinds: list[str], stop: asyncio.Event, liveness: Liveness) -> int:
    running = asyncio.create_task(polling.run(stop, kinds), name="vidrelay-polling")
    liveness.polling(running)
    stopping = asyncio.create_task(stop.wait())
    await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
    if running.done() and not stop.is_set():
        stopping.cancel()
        error = running.exception()
        log.critical("polling stopped unexpectedly: %s", error, exc_info=error)
        return EXIT_FATAL
    log.warning("signal received: stopping polling")
    with contextlib.suppress(Exception):
        await running  # a batch already fetched finishes its try to reach the inbox
    return EXIT_OK


async def _webhook(
    settings: Settings,
    receiver: Receiver,
    bot: Bot,
    kinds: list[str],
    stop: asyncio.Event,
    liveness: Liveness,
) -> int:
    assert settings.webhook_url is not None
    assert settings.webhook_secret is not None
    secret = settings.webhook_secret.get_secret_value()
    runner = web.AppRunner(webhook_app(receiver, secret), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "0.0.0.0", settings.webhook_port).start()  # noqa: S104 - behind the proxy
    await bot.set_webhook(settings.webhook_url, secret_token=secret, allowed_updates=kinds)
    liveness.webhook(listening=True)
    try:
        await stop.wait()
    finally:
        liveness.stopped()
        await runner.cleanup()  # waits for the requests in flight: their updates reach the inbox
    return EXIT_OK
