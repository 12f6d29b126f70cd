"""Short answers to the user's message that must never fail the job (a refused one is logged), in
the language the request carries."""

from __future__ import annotations

import logging

from core.requests.download import DownloadRequest
from core.texts import reactions
from core.texts.words import Words
from ports.caches import HandledUrls
from ports.language import Languages
from ports.messenger import Messenger, MessengerError

log = logging.getLogger("vidrelay.download")


class Replies:
    def __init__(self, messenger: Messenger, handled: HandledUrls, languages: Languages) -> None:
        self._messenger = messenger
        self._handled = handled
        self._languages = languages

    def through(self, messenger: Messenger) -> Replies:
        """The same replies, said through `messenger` (an attempt's fenced one)."""
        return Replies(messenger, self._handled, self._languages)

    def words(self, request: DownloadRequest) -> Words:
        """The words of the request's chat, in its language."""
        return Words.of(self._languages, request.language)

    async def say(self, request: DownloadRequest, text: str) -> None:
        try:
            await self._messenger.send_text(request.chat_id, text, reply_to=request.message_id)
        except MessengerError as error:
            log.warning("could not tell the chat", exc_info=error, extra={"chat_id": request.chat_id})

    async def react(self, request: DownloadRequest) -> None:
        try:
            await self._messenger.react(request.chat_id, request.message_id, reactions.FAILURE)
        except MessengerError as error:
            log.warning("could not react", exc_info=error, extra={"chat_id": request.chat_id})

    async def reopen(self, request: DownloadRequest) -> None:
        """Editing the message may retry this link later."""
        await self._handled.forget_handled(request.chat_id, request.message_id, request.url)
