"""What the inbox's lanes call to handle a kept update: aiogram's Dispatcher, fed the update.

`last_try` reaches the handlers that ask for it (workflow data): the link handlers then report a
link the store still refuses instead of raising (core.incoming.updates.lanes).
"""

from __future__ import annotations

from aiogram import Bot, Dispatcher

from adapters.telegram.updates import to_aiogram
from ports.inbox import RawUpdate

PER_UPDATE = frozenset({"last_try"})
"""What a handler may ask for besides the dispatcher's workflow data: given with each update."""


class DispatcherFeed:
    def __init__(self, dispatcher: Dispatcher, bot: Bot) -> None:
        self._dispatcher = dispatcher
        self._bot = bot

    async def __call__(self, update: RawUpdate, last_try: bool) -> None:
        await self._dispatcher.feed_update(self._bot, to_aiogram(update, self._bot), last_try=last_try)
