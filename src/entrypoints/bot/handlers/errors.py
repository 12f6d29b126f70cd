"""A handler's bug costs one update, never the polling loop. A store that refused what an update
asked for is not a bug: that error goes back to the inbox, which handles the update again later
(core.incoming.updates.lanes)."""

from __future__ import annotations

import logging

from aiogram import Router
from aiogram.filters import ExceptionTypeFilter
from aiogram.types import ErrorEvent

from ports.errors import StoreError
from ports.inbox import UpdateNotKept

log = logging.getLogger("vidrelay.bot")


def setup() -> Router:
    router = Router(name="errors")
    router.errors.register(on_error, ~ExceptionTypeFilter(StoreError, UpdateNotKept))
    return router


async def on_error(event: ErrorEvent) -> None:
    log.error(
        "update handler failed",
        exc_info=event.exception,
        extra={"update_id": event.update.update_id},
    )
