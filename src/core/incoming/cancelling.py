"""/cancel: a user takes back their own link — a reply to the link or to the bot's message about
it, `/cancel all` for every link of theirs waiting in this chat, or the 🚫 button under a private
chat's log message (core.log_message.cancel_button).

A queued job is removed at once and its log message ends "🚫 Cancelled"; a running one is marked
(ports.cancels) and the worker holding it stops it (its heartbeat reads the mark: at once in this
process, through the store's announcement in any other), and that worker says "🚫 Cancelled". In
a private chat every job is the user's own; in a group a link is cancelled by whoever sent it or
by an admin of the group, and `/cancel all` takes only the asker's own.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from core import texts
from core.chat_settings.remembered_access import RememberedAccess
from core.chat_settings.who_may_change import Asker
from core.jobs.fields import log_fields
from core.log_message.cancel_button import CANCEL_JOB
from core.log_message.state import LogState
from core.log_message.views import LogViews
from core.requests.download import DownloadRequest
from core.texts.words import Words
from core.trust.buttons import Press, SignedButtons
from ports.cancels import JobCancels
from ports.jobs import Job
from ports.language import Languages

log = logging.getLogger("vidrelay.cancel")


class RunningJobs(Protocol):
    def cancel_asked(self) -> None:
        """A running job was marked cancelled: this process's workers check theirs now."""
        ...


@dataclass(frozen=True, slots=True)
class CancelAsk:
    asker: Asker
    replied_to: int | None
    """The message the /cancel replies to: the user's link, or the bot's log message."""
    everything: bool = False
    """`/cancel all`."""


class CancelOutcome(Enum):
    CANCELLED = "cancelled"
    NOTHING = "nothing"
    NOT_YOURS = "not_yours"
    HOW = "how"


@dataclass(frozen=True, slots=True)
class CancelReport:
    outcome: CancelOutcome
    count: int = 0


class Cancellations:
    def __init__(
        self,
        *,
        cancels: JobCancels,
        logs: LogViews,
        running: RunningJobs,
        access: RememberedAccess,
        buttons: SignedButtons,
        languages: Languages,
    ) -> None:
        """`access`: who administers a group (they may cancel anyone's link there)."""
        self._cancels = cancels
        self._logs = logs
        self._running = running
        self._access = access
        self._buttons = buttons
        self._languages = languages

    async def press(self, press: Press) -> CancelOutcome:
        """The 🚫 button: signed for the log message pressed, which only a private chat has, so
        the chat's own job is the user's own."""
        ref = await self._buttons.verify(press)
        if ref is None or ref.action != CANCEL_JOB or press.chat_id is None:
            return CancelOutcome.NOT_YOURS
        for job in await self._cancels.jobs_of(press.chat_id):
            request = _download(job)
            if str(job.id) == ref.object_id and request is not None:
                cancelled = await self._cancel_one(job, request)
                return CancelOutcome.CANCELLED if cancelled else CancelOutcome.NOTHING
        return CancelOutcome.NOTHING

    async def cancel(self, ask: CancelAsk) -> CancelReport:
        if not ask.everything and ask.replied_to is None:
            return CancelReport(CancelOutcome.HOW)
        asker = ask.asker
        waiting = [
            (job, request)
            for job in await self._cancels.jobs_of(asker.chat_id)
            if (request := _download(job)) is not None
        ]
        if ask.everything:
            targets = [(job, r) for job, r in waiting if r.user_id == asker.user_id or not asker.group]
        else:
            targets = [(job, r) for job, r in waiting if self._names(job, r, ask.replied_to)]
            if targets and not await self._may_cancel(asker, targets):
                return CancelReport(CancelOutcome.NOT_YOURS)
        count = 0
        for job, request in targets:
            count += await self._cancel_one(job, request)
        return CancelReport(CancelOutcome.CANCELLED if count else CancelOutcome.NOTHING, count)

    def _names(self, job: Job, request: DownloadRequest, replied_to: int | None) -> bool:
        """The reply names this job: its link's message, or its log message (as the row knows
        it, or as this process shows it)."""
        if replied_to is None:
            return False
        return (
            replied_to == request.message_id
            or replied_to in LogState.from_json(request.log).message_ids
            or self._logs.job_showing(request.chat_id, replied_to) == job.id
        )

    async def _may_cancel(self, asker: Asker, targets: list[tuple[Job, DownloadRequest]]) -> bool:
        if not asker.group or all(r.user_id == asker.user_id for _, r in targets):
            return True
        return await self._access.may_change(asker)

    async def _cancel_one(self, job: Job, request: DownloadRequest) -> int:
        done = await self._cancels.cancel_job(job.id)
        if done is None:
            return 0  # it finished meanwhile
        log.info(
            "job cancelled by its user%s", " while it ran" if done.running else "", extra=log_fields(job)
        )
        if done.running:
            self._running.cancel_asked()  # its worker says so when it stopped
        elif request.private:
            logged = DownloadRequest.from_payload(done.job.payload)
            words = Words.of(self._languages, logged.language)
            cancel = words.say(texts.BUTTON_CANCEL)
            state = LogState.from_json(logged.log)
            view = self._logs.open(job.id, logged.log_address, state, cancel_label=cancel)
            view.settle(words.say(texts.CANCELLED))
        return 1


def _download(job: Job) -> DownloadRequest | None:
    try:
        return DownloadRequest.from_payload(job.payload)
    except ValueError:
        return None  # not a link's job (an inline one, a periodic one): nothing /cancel names
