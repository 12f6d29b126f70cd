"""`vidrelay run --webhook`: Telegram POSTs each update to VIDRELAY_WEBHOOK_URL, with the secret
token, and hears 200 only once the inbox kept it.

A request whose update the store would not keep is answered 503, so Telegram delivers it again
(it retries a failed delivery with a growing delay); one without the secret token 401, one that
is not an update 400. aiohttp's shutdown waits for requests in flight, so a stop lets the updates
already received reach the inbox.

A quiet bot gets no request for hours, so freshness (`/healthz`) also comes from asking Telegram:
every third of VIDRELAY_HEALTH_STALE_SECONDS, getWebhookInfo says whether the webhook is still
ours and whether updates wait for it; nothing waiting is as good as a request taken, updates
waiting with a delivery error is Telegram failing to reach us (in its own words).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
from collections.abc import Sequence

from aiogram import Bot
from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from adapters.telegram.updates import raw_update_of_json
from core.incoming.updates.receiving import Receiver
from core.update_freshness import UpdateFreshness
from entrypoints.listening import listen
from entrypoints.monitoring.liveness import Liveness
from entrypoints.settings import Settings
from ports.bot_account import BotAccount
from ports.clock import Clock
from ports.messenger import MessengerError

log = logging.getLogger("vidrelay.webhook")

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"  # noqa: S105 - the header's name
PATH = "/webhook"
EXIT_OK = 0


async def serve_webhook(
    settings: Settings,
    receiver: Receiver,
    bot: Bot,
    kinds: Sequence[str],
    account: BotAccount,
    clock: Clock,
    stop: asyncio.Event,
    liveness: Liveness,
) -> int:
    assert settings.webhook_url is not None
    assert settings.webhook_secret is not None
    secret = settings.webhook_secret.get_secret_value()
    runner = web.AppRunner(webhook_app(receiver, secret, liveness.freshness), access_log=None)
    await runner.setup()
    all_interfaces = "0.0.0.0"  # noqa: S104 - behind the operator's HTTPS proxy
    await listen(
        runner, all_interfaces, settings.webhook_port, serving="the webhook", setting="VIDRELAY_WEBHOOK_PORT"
    )
    await bot.set_webhook(settings.webhook_url, secret_token=secret, allowed_updates=list(kinds))
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
        await runner.cleanup()  # waits for the requests in flight: their updates reach the inbox
    return EXIT_OK


def webhook_app(receiver: Receiver, secret: str, freshness: UpdateFreshness | None = None) -> web.Application:
    async def on_update(request: web.Request) -> web.Response:
        if not hmac.compare_digest(request.headers.get(SECRET_HEADER, "").encode(), secret.encode()):
            return web.Response(status=401)
        try:
            update = raw_update_of_json(json.loads(await request.read()))
        except (ValueError, TypeError):  # not JSON, or not an update
            return web.Response(status=400)
        try:
            await receiver.receive([update])
        except Exception as error:  # whatever the store raised: not kept
            log.warning(
                "update not kept: answered 503, Telegram delivers it again",
                exc_info=error,
                extra={"update_id": update.update_id},
            )
            return web.Response(status=503)
        return web.Response(status=200)

    app = web.Application(middlewares=[_taken(freshness)] if freshness is not None else [])
    app.router.add_post(PATH, on_update)
    return app


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
