"""A long video in a group waits for an answer: the request is parked with the job to run, and
the prompt's buttons adopt or cancel it (`confirm`: one atomic claim decides)."""

from __future__ import annotations

from collections.abc import Callable

from returns.result import Failure, Success

from core import texts
from core.jobs.outcome import JobOutcome
from core.requests.download import DownloadRequest
from core.requests.job_names import DOWNLOAD_VIDEO
from core.requests.prompt import CANCEL, CONFIRM
from core.texts.words import Words
from core.trust.buttons import SignedButton, SignedButtons
from core.trust.callback_data import ButtonRef
from core.urls import site_key
from core.work.delivery.failures import api_failure
from ports.clock import Clock
from ports.jobs import NewJob
from ports.messenger import Messenger, MessengerError
from ports.pending import PendingRequest, PendingStore


def needs_confirmation(request: DownloadRequest, duration: float | None, longer_than: float) -> bool:
    return not request.private and not request.confirmed and duration is not None and duration > longer_than


def _confirmed_job(request: DownloadRequest, max_attempts: int) -> NewJob:
    return NewJob(
        DOWNLOAD_VIDEO,
        request.to_payload(),
        max_attempts,
        key=site_key(request.url),
        owner_id=request.user_id,
        requester=request.chat_id,
    )


class Parking:
    def __init__(
        self,
        *,
        pending: PendingStore,
        buttons: SignedButtons,
        clock: Clock,
        new_id: Callable[[], str],
        max_attempts: int,
    ) -> None:
        self._pending = pending
        self._buttons = buttons
        self._clock = clock
        self._new_id = new_id
        self._max_attempts = max_attempts

    async def ask_first(
        self,
        request: DownloadRequest,
        duration: float,
        pinned_key: str | None,
        messenger: Messenger,
        words: Words,
    ) -> JobOutcome:
        """Park the request (pinning `pinned_key`'s bytes) and post the prompt through `messenger`
        (the attempt's fenced one), in the chat's `words`."""
        pending_id = self._new_id()
        confirmed = request.for_job(entry_index=request.entry_index, confirmed=True, verbose=False)
        job = _confirmed_job(confirmed, self._max_attempts)
        parked = PendingRequest(
            pending_id,
            request.chat_id,
            request.user_id,
            request.message_id,
            job,
            pinned_key,
            self._clock.now(),
        )
        await self._pending.park(parked)
        buttons = [
            [
                SignedButton(words.say(texts.LONG_VIDEO_YES), ButtonRef(CONFIRM, pending_id)),
                SignedButton(words.say(texts.LONG_VIDEO_NO), ButtonRef(CANCEL, pending_id)),
            ]
        ]
        try:
            await self._buttons.post(
                messenger,
                request.chat_id,
                words.long_video_prompt(duration),
                buttons,
                reply_to=request.message_id,
            )
        except MessengerError as error:
            # Nobody can answer a prompt that is not there; the retry parks and asks anew.
            await self._pending.cancel(pending_id, request.user_id)
            return Failure(api_failure(error))
        return Success(None)
