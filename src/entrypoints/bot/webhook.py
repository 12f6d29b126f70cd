"""`vidrelay run --webhook`: Telegram posts each update to VIDRELAY_WEBHOOK_URL, with the secret
token, and the webhook server answers 200 once the update is durable.

A quiet bot gets no request for hours, so freshness (`/healthz`) also comes from asking Telegram:
every third of VIDRELAY_HEALTH_STALE_SECONDS, getWebhookInfo says whether the webhook is still
ours and whether updates wait for it; nothing waiting is as good as a request taken, updates
waiting with a delivery error is Telegram failing to reach us (in its own words).
"""

from __future__ import annotations

import asyncio
import contextlib

from aiogram import Bot, Dispatcher
from aiogram.webhook.aiohttp_server import SimpleRequestHandler, setup_application
from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from core.update_freshness import UpdateFreshness
from entrypoints.listening import listen
from entrypoints.monitoring.health import Liveness
from entrypoints.settings import Settings
from ports.bot_account import BotAccount
from ports.clock import Clock
from ports.messenger import MessengerError

PATH = "/webhook"
EXIT_OK = 0


async def serve_webhook(
    settings: Settings,
    dispatcher: Dispatcher,
    bot: Bot,
    account: BotAccount,
    clock: Clock,
    stop: asyncio.Event,
    liveness: Liveness,
) -> int:
    assert settings.webhook_url is not None
    assert settings.webhook_secret is not None
    secret = settings.webhook_secret.get_secret_value()
    web_app = web.Application(middlewares=[_taken(liveness.freshness)] if liveness.freshness else [])
    SimpleRequestHandler(dispatcher=dispatcher, bot=bot, secret_token=secret).register(web_app, path=PATH)
    setup_application(web_app, dispatcher, bot=bot)
    runner = web.AppRunner(web_app, access_log=None)
    await runner.setup()
    all_interfaces = "0.0.0.0"  # noqa: S104 - behind the operator's HTTPS proxy
    await listen(
        runner, all_interfaces, settings.webhook_port, serving="the webhook", setting="VIDRELAY_WEBHOOK_PORT"
    )
    await bot.set_webhook(
        settings.webhook_url, secret_token=secret, allowed_updates=dispatcher.resolve_used_update_types()
    )
    liveness.webhook(listening=True)
    watching = None
    if liveness.freshness is not None:
        watching = asyncio.create_task(
            watch_webhook(account, settings.webhook_url, liveness.freshness, clock), name="vidrelay-webhook"
        )
    try:
        await stop.wait()
    finally:
        if watching is not None:
            watching.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watching
        liveness.stopped()
        await runner.cleanup()
    return EXIT_OK


def _taken(freshness: UpdateFreshness) -> Middleware:
    """Each update Telegram delivered and the bot took (200) is fresh news."""

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        response = await handler(request)
        if request.path == PATH and response.status == 200:
            freshness.updates_received()
        return response

    return middleware


async def watch_webhook(account: BotAccount, url: str, freshness: UpdateFreshness, clock: Clock) -> None:
    while True:
        await clock.sleep(freshness.stale_seconds / 3)
        try:
            state = await account.webhook()
        except MessengerError as error:
            freshness.updates_failed(f"getWebhookInfo failed: {error.description}")
            continue
        if state.url != url:
            # Not the URL itself: its path may hold a secret, and /healthz is read by anyone.
            freshness.updates_failed(
                "the webhook is no longer VIDRELAY_WEBHOOK_URL (another process changed or deleted it)"
            )
        elif state.pending_updates == 0:
            freshness.updates_received()  # nothing waits for us: nothing is missed
        elif state.last_error:
            freshness.updates_failed(
                f"Telegram cannot deliver to the webhook ({state.pending_updates} update(s) waiting):"
                f" {state.last_error}"
            )
