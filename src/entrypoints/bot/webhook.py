"""The webhook server: Telegram POSTs each update, and hears 200 only once the inbox kept it.

A request whose update the store would not keep is answered 503, so Telegram delivers it again
(it retries a failed delivery with a growing delay); one without the secret token 401, one that
is not an update 400. aiohttp's shutdown waits for requests in flight, so a stop lets the updates
already received reach the inbox.
"""

from __future__ import annotations

import hmac
import json
import logging

from aiohttp import web

from adapters.telegram.updates import raw_update_of_json
from core.incoming.updates.receiving import Receiver

log = logging.getLogger("vidrelay.webhook")

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"  # noqa: S105 - the header's name
PATH = "/webhook"


def webhook_app(receiver: Receiver, secret: str) -> web.Application:
    async def on_update(request: web.Request) -> web.Response:
        if not hmac.compare_digest(request.headers.get(SECRET_HEADER, "").encode(), secret.encode()):
            return web.Response(status=401)
        try:
            update = raw_update_of_json(json.loads(await request.read()))
        except (ValueError, TypeError):  # not JSON, or not an update
            return web.Response(status=400)
        try:
            await receiver.receive([update])
        except Exception as error:  # noqa: BLE001 - whatever the store raised: not kept
            log.warning(
                "update %d not kept: answered 503, Telegram delivers it again: %s", update.update_id, error
            )
            return web.Response(status=503)
        return web.Response(status=200)

    app = web.Application()
    app.router.add_post(PATH, on_update)
    return app
