"""A message with links becomes durable jobs: one per distinct, allowed URL.

The handler calls this and returns; nothing here downloads. The handled-URL guard commits with
each job, so an edited message re-runs only URLs that are new to it, and an update handled again
(the inbox replays it after a crash, or after its work was refused) enqueues nothing twice. A
link whose job the store refuses (any error of the enqueue, or of the reads it depends on) raises
UpdateNotKept: the update stays in the inbox and is handled again later. Only on the update's
last try (`last_try`: the inbox gave up waiting) is the link reported as not kept instead, and its
sender asked to send it again. A private chat hears at once that its link was taken
(announce.py).
"""

from __future__ import annotations

import logging
from dataclasses import replace

from returns.result import Failure

from core.allowlist import ChatAllowlist
from core.incoming.intake.announce import Announcements
from core.incoming.intake.limits import UserLinkLimits
from core.incoming.intake.message import IncomingMessage, IntakeReport
from core.incoming.known_videos import KnownVideos
from core.jobs.submitter import JobSubmitter
from core.requests.download import PRIVATE, DownloadRequest
from core.requests.job_names import DOWNLOAD_VIDEO
from core.texts.languages import chat_language
from core.url_guard import UrlGuard
from core.urls import extract_urls, site_key
from ports.caches import HandledUrls
from ports.chat_settings import ChatSettings, ChatSettingsStore
from ports.clock import Clock
from ports.errors import StoreError
from ports.inbox import UpdateNotKept
from ports.jobs import HandledUrlGuard
from ports.quota import UserQuota

log = logging.getLogger("vidrelay.intake")


class LinkIntake:
    def __init__(
        self,
        *,
        jobs: JobSubmitter,
        quota: UserQuota,
        guard: UrlGuard,
        seen: HandledUrls,
        clock: Clock,
        choices: ChatSettingsStore,
        announcements: Announcements,
        limits: UserLinkLimits,
        known: KnownVideos,
        allowlist: ChatAllowlist,
        max_queued_per_user: int,
    ) -> None:
        self._jobs = jobs
        self._announcements = announcements
        self._quota = quota
        self._guard = guard
        self._seen = seen
        self._clock = clock
        self._choices = choices
        self._limits = limits
        self._known = known
        self._cap = max_queued_per_user
        self._allowlist = allowlist

    async def accept(self, message: IncomingMessage, *, last_try: bool = False) -> IntakeReport:
        """UpdateNotKept when a link's job could not be written (never on `last_try`)."""
        report = IntakeReport()
        if not self._allowlist.allows(message.chat_id):
            if extract_urls(message.text, message.entities) and not message.edited:
                report.tell_not_allowed = self._allowlist.refused(message.chat_id, message.user_id)
            return report
        if not await self._read_before(message, last_try):
            return report
        urls = extract_urls(message.text, message.entities)
        if not urls:
            return report
        queued = await self._queued(message.user_id)
        budget = await self._limits.budget(message.user_id)
        chosen = await self._chosen(message.chat_id, last_try)
        for url in urls:
            verdict = await self._guard.check(url)
            if isinstance(verdict, Failure):
                report.refused.append((url, verdict.failure()))
                continue
            if queued is not None and queued >= self._cap:
                report.queue_full = True
                break
            report.limited = budget.refused() if budget is not None else None
            if report.limited is not None:
                break
            if report.not_kept:  # one refusal on the last try: the store refuses writes now
                report.not_kept.append(url)
                continue
            request = _with_choices(_request(message, url), chosen, message)
            if await self._take(request, report, last_try):
                if budget is not None:
                    await budget.spend()
                queued = None if queued is None else queued + 1
        return report

    async def _take(self, request: DownloadRequest, report: IntakeReport, last_try: bool) -> bool:
        """Queue one link's job and say so in `report`; whether it is a new job. UpdateNotKept
        when the store refused it (never on `last_try`)."""
        if report.not_kept:  # one refusal on the last try: the store refuses writes now
            report.not_kept.append(request.url)
            return False
        try:
            quick = await self._cache_hit(request)
            job_id = await enqueue_download(self._jobs, request, self._due_at(), quick=quick)
        except Exception as error:
            if not last_try:
                raise UpdateNotKept(f"the store refused the link's job: {error}") from error
            # Expected (the store refuses writes now): its reason, not a traceback.
            log.error(  # noqa: TRY400
                "link not queued on its last try, asking to send it again", extra={"error": str(error)}
            )
            report.not_kept.append(request.url)
            return False
        if job_id is None:
            report.already_handled.append(request.url)
            return False
        await self._announcements.accepted(request, job_id)
        report.accepted.append(request.url)
        return True

    def _due_at(self) -> float:
        """Now (0), or once the announcement let it go (announce.py: a store many processes share)."""
        hold = self._announcements.hold_seconds
        return self._clock.now() + hold if hold else 0.0

    async def _cache_hit(self, request: DownloadRequest) -> bool:
        """Telegram has this link's one video (or sound) as the chat would get it: the job only
        sends it again, so it takes the quick lane instead of waiting behind downloads. A chat
        that chose a quality may get another format than the one cached: not taken for a hit."""
        if request.verbose or request.max_height is not None:
            return False
        try:
            known = await self._known.known(request.url, sound=request.audio)
        except StoreError:
            return False
        return known is not None and known.alone

    async def _queued(self, user_id: int) -> int | None:
        """Jobs this user has queued; None when the store cannot say now (the cap is not applied
        then: a busy store is no reason to refuse a link)."""
        try:
            return await self._quota.waiting_for_owner(user_id)
        except StoreError as error:
            log.warning("the per-user cap could not be read", exc_info=error)
            return None

    async def _chosen(self, chat_id: int, last_try: bool) -> ChatSettings:
        """The chat's choices (a job is handled as the chat wanted it when it came); the
        defaults only on the last try, when the store cannot say."""
        try:
            return await self._choices.chat_settings(chat_id) or ChatSettings()
        except StoreError as error:
            if not last_try:
                raise UpdateNotKept(f"the chat's settings could not be read: {error}") from error
            log.warning("the chat's settings could not be read", exc_info=error)
            return ChatSettings()

    async def _read_before(self, message: IncomingMessage, last_try: bool) -> bool:
        """Only private edits re-run links, so only private messages are remembered; an edit of a
        message the bot never read (sent before it ran, in a chat it never saw, swept) is ignored
        (False). UpdateNotKept when the store cannot say (not on the last try)."""
        try:
            if not message.edited:
                if message.chat_type == PRIVATE:
                    await self._seen.remember_message(message.chat_id, message.message_id, self._clock.now())
                return True
            if await self._seen.knows_message(message.chat_id, message.message_id):
                return True
        except StoreError as error:
            if not last_try:
                raise UpdateNotKept(
                    f"the store could not say whether the bot read this message: {error}"
                ) from error
            log.warning("the messages read could not be checked or written", exc_info=error)
            if not message.edited:
                return True
        log.info("ignored an edit of a message the bot never read", extra={"chat_id": message.chat_id})
        return False


async def enqueue_download(
    jobs: JobSubmitter, request: DownloadRequest, due_at: float = 0.0, *, quick: bool = False
) -> int | None:
    """The job for one link; None when this message's link already became one (guarded).
    `quick`: a cache hit, for the quick lane (ports.queue); its turn is the chat's (fair order)."""
    job_id: int | None = await jobs.submit(
        DOWNLOAD_VIDEO,
        request.to_payload(),
        key=site_key(request.url),
        owner_id=request.user_id,
        requester=request.chat_id,
        quick=quick,
        guard=HandledUrlGuard(request.chat_id, request.message_id, request.url),
        available_at=due_at,
    )
    return job_id


def _request(message: IncomingMessage, url: str) -> DownloadRequest:
    return DownloadRequest(
        url=url,
        chat_id=message.chat_id,
        chat_type=message.chat_type,
        message_id=message.message_id,
        user_id=message.user_id,
        verbose=message.verbose,
        posted_at=message.posted_at,
    )


def _with_choices(
    request: DownloadRequest, chosen: ChatSettings, message: IncomingMessage
) -> DownloadRequest:
    """The chat's choices travel with the job: it is handled as the chat wanted it when it came,
    and every word of it is said in the language the chat reads now."""
    language = chat_language(
        private=request.private, chosen=chosen.language, app_language=message.app_language
    )
    return replace(
        request,
        language=language,
        audio=chosen.audio_only if message.audio is None else message.audio,
        max_height=chosen.max_height,
        as_file=chosen.as_file,
        ask_long=chosen.ask_long_videos,
        ask_longer_than=chosen.ask_longer_than_seconds,
    )
