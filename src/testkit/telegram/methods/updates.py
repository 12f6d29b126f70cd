"""How the bot receives updates: the getUpdates long poll, or a webhook that rules it out."""

from __future__ import annotations

import asyncio
from typing import Any

from testkit.telegram.call import Call, Method
from testkit.telegram.errors import bad_request, superseded_poll, webhook_active
from testkit.telegram.limits import MAX_POLL_SECONDS
from testkit.telegram.state import TelegramState


async def get_updates(state: TelegramState, call: Call) -> Any:
    if state.webhook is not None:
        raise webhook_active()
    params = call.params
    state.updates.confirm(params.integer("offset"))
    allowed = params.decoded("allowed_updates", "allowed updates")
    if isinstance(allowed, list) and allowed:
        state.updates.allow(frozenset(str(kind) for kind in allowed))
    limit = max(1, min(params.integer("limit") or 100, 100))
    timeout = max(0.0, min(float(params.integer("timeout") or 0), MAX_POLL_SECONDS))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    # `state.updates` is read afresh each time: a reset in between replaces it.
    generation = state.updates.start_poll()
    try:
        while True:
            change = state.changes.upcoming()
            if state.updates.superseded(generation):
                raise superseded_poll()
            ready = state.updates.deliverable()[:limit]
            remaining = deadline - loop.time()
            if ready or remaining <= 0 or state.stopping.is_set():
                return ready
            await state.changes.wait(change, remaining)
    finally:
        state.updates.end_poll()


async def delete_webhook(state: TelegramState, call: Call) -> Any:
    state.webhook, state.webhook_error = None, None
    if call.params.flag("drop_pending_updates"):
        state.updates.drop_pending()
    return True


async def set_webhook(state: TelegramState, call: Call) -> Any:
    url = call.params.text("url") or ""
    if not url:
        return await delete_webhook(state, call)
    if not url.startswith("https://") and not url.startswith("http://"):
        raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
    state.webhook = {"url": url, "secret_token": call.params.text("secret_token")}
    if call.params.flag("drop_pending_updates"):
        state.updates.drop_pending()
    return True


async def get_webhook_info(state: TelegramState, call: Call) -> Any:
    info: dict[str, Any] = {
        "url": state.webhook["url"] if state.webhook else "",
        "has_custom_certificate": False,
        "pending_update_count": state.updates.pending,
    }
    if state.webhook is not None:
        info["max_connections"] = 40
        if state.webhook_error is not None:
            info["last_error_date"], info["last_error_message"] = state.webhook_error
    return info


METHODS: dict[str, Method] = {
    "getUpdates": get_updates,
    "deleteWebhook": delete_webhook,
    "setWebhook": set_webhook,
    "getWebhookInfo": get_webhook_info,
}
