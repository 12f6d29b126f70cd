"""The Dispatcher and what its handlers may ask for by name (aiogram's workflow data)."""

from __future__ import annotations

from collections.abc import Collection

from aiogram import Dispatcher

from core.chat_settings.service import ChatSettingsService
from core.incoming.cancelling import Cancellations
from core.incoming.confirmations import Confirmations
from core.incoming.inline import InlineRequests
from core.incoming.intake.links import LinkIntake
from core.status import StatusQuery
from entrypoints.bot import handlers


def build_dispatcher(
    *,
    intake: LinkIntake,
    confirmations: Confirmations,
    cancellations: Cancellations,
    inline: InlineRequests | None,
    status: StatusQuery,
    chat_settings: ChatSettingsService,
    queue_cap: int,
    admin_user_ids: Collection[int],
) -> Dispatcher:
    dispatcher = Dispatcher(
        intake=intake,
        confirmations=confirmations,
        cancellations=cancellations,
        inline=inline,
        status=status,
        chat_settings=chat_settings,
        queue_cap=queue_cap,
        admin_user_ids=frozenset(admin_user_ids),
    )
    dispatcher.include_router(handlers.setup())
    return dispatcher
