"""A private chat hears at once that its link was taken: the job's log message goes out when the
job exists, at the handler — not when a worker is free (`⏳ Queued — N ahead of you` while none
is). The worker then carries on in that same message: one message per link.

On a store only this process uses, the message is a log view the worker adopts in memory. On a
store many processes share (PostgreSQL), the worker may be another process: the link's job is
enqueued held back for `hold_seconds`, the message is posted, and its id is written into the job
as it is let go (`HeldBackJobs`), so whoever claims the job finds the message in its payload. A
message that could not be posted in time (Telegram slow or down) leaves the job to post its own;
one that lost the race to a claim anyway is deleted.
"""

from __future__ import annotations

import logging

from core import texts
from core.jobs.tasks import first_of
from core.log_message.state import LogState
from core.log_message.views import LogViews
from core.requests.download import DownloadRequest
from core.texts.words import Words
from ports.clock import Clock
from ports.errors import StoreError
from ports.held_back import HeldBackJobs
from ports.language import Languages
from ports.messenger import Messenger, MessengerError
from ports.queue_view import QueueView

log = logging.getLogger("vidrelay.intake")

HOLD_SECONDS = 10.0
"""How long a link's job waits for its log message's id on a shared store, at most."""
SEND_SECONDS = 5.0
"""The longest the first text may take to go out before the job is let go without it."""


class Announcements:
    def __init__(
        self,
        logs: LogViews,
        depth: QueueView,
        *,
        worker_slots: int,
        messenger: Messenger,
        clock: Clock,
        languages: Languages,
        held_back: HeldBackJobs | None = None,
    ) -> None:
        """`depth`: the queue's counts, for a waiting link's place in it; `held_back`: the shared
        store's way to let a held-back job go (None: a store only this process uses)."""
        self._logs = logs
        self._depth = depth
        self._clock = clock
        self._slots = worker_slots
        self._messenger = messenger
        self._clock = clock
        self._held_back = held_back
        self._languages = languages

    @property
    def hold_seconds(self) -> float:
        """How long after now a link's job is to be due: until its message's id is in it."""
        return HOLD_SECONDS if self._held_back is not None else 0.0

    async def accepted(self, request: DownloadRequest, job_id: int) -> None:
        if self._held_back is None:
            # Only the worker that claims the job may write its row (fenced leases): the message
            # id reaches the row with the worker's first save.
            if request.private:
                words = Words.of(self._languages, request.language)
                first = await self._first_text(job_id, words)
                self._logs.announce(
                    job_id, request.log_address, first, cancel_label=words.say(texts.BUTTON_CANCEL)
                )
            return
        await self._speak_then_let_go(request, job_id, self._held_back)

    async def _speak_then_let_go(
        self, request: DownloadRequest, job_id: int, held_back: HeldBackJobs
    ) -> None:
        words = Words.of(self._languages, request.language)
        first = await self._first_text(job_id, words) if request.private else None
        message_id = await self._post(request, first) if first is not None else None
        payload = request.to_payload()
        if message_id is not None and first is not None:
            payload["log"] = LogState([message_id], "", [first]).to_json()
        try:
            released = await held_back.release_held_back(job_id, payload, self._clock.now())
        except Exception as error:  # whatever the store raised: not let go
            # The job still starts when its hold ends, and posts a message of its own.
            log.warning(
                "a held-back job could not be let go early",
                exc_info=error,
                extra={"chat_id": request.chat_id},
            )
            released = False
        if not released and message_id is not None:
            await self._take_back(request, message_id)

    async def _post(self, request: DownloadRequest, text: str) -> int | None:
        try:
            posted: int | None = await first_of(
                self._messenger.send_text(request.chat_id, text, reply_to=request.message_id),
                self._clock.sleep(SEND_SECONDS),
            )
        except MessengerError as error:
            log.warning(
                "a link's log message was not posted",
                extra={"chat_id": request.chat_id, "error": error.description},
            )
            return None
        return posted

    async def _take_back(self, request: DownloadRequest, message_id: int) -> None:
        """The job went without this message's id (its worker posts its own): one message per link."""
        try:
            await self._messenger.delete_message(request.chat_id, message_id)
        except MessengerError as error:
            log.warning(
                "a second log message stays", extra={"chat_id": request.chat_id, "error": error.description}
            )

    async def _first_text(self, job_id: int, words: Words) -> str:
        return words.first_line(await self._ahead(job_id))

    async def _ahead(self, job_id: int) -> int:
        """How many jobs must start before this one can, in the order the claims take them (the
        fair order: another user's backlog is not ahead of a newcomer); 0 when a worker is free
        for it."""
        try:
            before = await self._depth.ahead_of(job_id, self._clock.now())
            counts = await self._depth.counts()
        except StoreError:
            return 0  # the link is queued already: only the count is missing
        free = max(self._slots - counts.running, 0)
        return before - free + 1 if before >= free else 0
