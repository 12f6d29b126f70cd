"""A handler's bug costs one update, never the polling loop."""

from __future__ import annotations

import logging

from aiogram import Router
from aiogram.types import ErrorEvent

log = logging.getLogger("vidrelay.bot")


def setup() -> Router:
    router = Router(name="errors")
    router.errors.register(on_error)
    return router


async def on_error(event: ErrorEvent) -> None:
    log.error(
        "update handler failed",
        exc_info=event.exception,
        extra={"update_id": event.update.update_id},
    )
