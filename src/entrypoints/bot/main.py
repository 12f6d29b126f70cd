"""`vidrelay run`: the bot process.

Start order: store → engine (boot recovery, dead-lettering of jobs that killed earlier boots) →
polling. Stop order on SIGTERM/SIGINT: stop polling → stop claiming and let in-flight jobs
finish for the grace period → close. A polling loop that dies is fatal: logged, exit 1.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys

from aiogram import Bot, Dispatcher
from aiogram.webhook.aiohttp_server import SimpleRequestHandler, setup_application
from aiohttp import web

from entrypoints.bot.metrics import start_metrics
from entrypoints.container import Container, shutdown
from entrypoints.logs import configure_logging
from entrypoints.settings import Settings

log = logging.getLogger("vidrelay.run")
EXIT_OK, EXIT_FATAL, EXIT_USAGE = 0, 1, 2


def run_bot(settings: Settings, *, webhook: bool = False) -> int:
    configure_logging(settings.log_format)
    if settings.bot_token is None:
        print("vidrelay: VIDRELAY_BOT_TOKEN is required to run the bot", file=sys.stderr)
        return EXIT_USAGE
    if webhook and (not settings.webhook_url or settings.webhook_secret is None):
        print("vidrelay: --webhook needs VIDRELAY_WEBHOOK_URL and VIDRELAY_WEBHOOK_SECRET", file=sys.stderr)
        return EXIT_USAGE
    try:
        return asyncio.run(serve(settings, webhook=webhook))
    except Exception:
        log.exception("fatal error, exiting")
        return EXIT_FATAL


async def serve(settings: Settings, *, webhook: bool = False) -> int:
    container = Container(settings=settings)
    try:
        await container.blob_files().clear_staging()  # a dead process's partial downloads
        engine = await container.engine.async_()
        dispatcher = await container.dispatcher.async_()
        bot = await container.bot.async_()
        await engine.start()
        metrics = await start_metrics(await container.status.async_(), settings.metrics_port)
        try:
            return await _receive_updates(settings, dispatcher, bot, webhook)
        finally:
            log.warning("stopping: in-flight jobs may finish for %ss", settings.shutdown_grace_seconds)
            await engine.stop(settings.shutdown_grace_seconds)
            if metrics is not None:
                await metrics.cleanup()
    finally:
        await shutdown(container)


async def _receive_updates(settings: Settings, dispatcher: Dispatcher, bot: Bot, webhook: bool) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    if webhook:
        return await _webhook(settings, dispatcher, bot, stop)
    polling = asyncio.create_task(
        dispatcher.start_polling(
            bot,
            handle_signals=False,
            close_bot_session=False,
            allowed_updates=dispatcher.resolve_used_update_types(),
        )
    )
    stopping = asyncio.create_task(stop.wait())
    await asyncio.wait({polling, stopping}, return_when=asyncio.FIRST_COMPLETED)
    if polling.done():
        stopping.cancel()
        error = polling.exception()
        log.critical("polling stopped unexpectedly: %s", error, exc_info=error)
        return EXIT_FATAL
    log.warning("signal received: stopping polling")
    with contextlib.suppress(RuntimeError):
        await dispatcher.stop_polling()
    with contextlib.suppress(Exception):
        await polling
    return EXIT_OK


async def _webhook(settings: Settings, dispatcher: Dispatcher, bot: Bot, stop: asyncio.Event) -> int:
    assert settings.webhook_url is not None
    assert settings.webhook_secret is not None
    secret = settings.webhook_secret.get_secret_value()
    web_app = web.Application()
    SimpleRequestHandler(dispatcher=dispatcher, bot=bot, secret_token=secret).register(
        web_app, path="/webhook"
    )
    setup_application(web_app, dispatcher, bot=bot)
    runner = web.AppRunner(web_app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "0.0.0.0", settings.webhook_port).start()  # noqa: S104 - behind the proxy
    await bot.set_webhook(
        settings.webhook_url, secret_token=secret, allowed_updates=dispatcher.resolve_used_update_types()
    )
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
    return EXIT_OK
