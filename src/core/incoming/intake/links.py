"""A message with links becomes durable jobs: one per distinct, allowed URL.

The handler calls this and returns; nothing here downloads. The handled-URL guard commits with
each job, so an edited message re-runs only URLs that are new to it. A link the store refuses
for now is never dropped: it keeps trying in the background (retries.py) while this returns.
A private chat hears at once that its link was taken (announce.py), from here or from the
background tries once the store takes the link.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import replace
from functools import partial

from returns.result import Failure

from core.incoming.intake.announce import Announcements
from core.incoming.intake.limits import UserLinkLimits
from core.incoming.intake.message import IncomingMessage, IntakeReport
from core.incoming.intake.retries import EnqueueRetries, enqueue_download
from core.incoming.known_videos import KnownVideos
from core.jobs.submitter import JobSubmitter
from core.requests.download import PRIVATE, DownloadRequest
from core.url_guard import UrlGuard
from core.urls import extract_urls
from ports.caches import HandledUrls
from ports.chat_settings import ChatSettings, ChatSettingsStore
from ports.clock import Clock
from ports.errors import StoreError
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
        retries: EnqueueRetries,
        announcements: Announcements,
        limits: UserLinkLimits,
        known: KnownVideos,
        max_queued_per_user: int,
        allowed_chat_ids: Collection[int] = (),
    ) -> None:
        self._jobs = jobs
        self._announcements = announcements
        self._quota = quota
        self._guard = guard
        self._seen = seen
        self._clock = clock
        self._choices = choices
        self._retries = retries
        self._limits = limits
        self._known = known
        self._cap = max_queued_per_user
        self._allowed = frozenset(allowed_chat_ids)

    def allows_chat(self, chat_id: int) -> bool:
        return not self._allowed or chat_id in self._allowed

    async def close(self, grace_seconds: float) -> None:
        """Shutdown: links still waiting for the store get the grace, then are asked for again."""
        await self._retries.close(grace_seconds)

    async def accept(self, message: IncomingMessage) -> IntakeReport:
        report = IntakeReport()
        if not self.allows_chat(message.chat_id):
            return report
        store_ok = await self._read_before(message)
        if store_ok is None:
            return report
        urls = extract_urls(message.text, message.entities)
        if not urls:
            return report
        queued = await self._queued(message.user_id)
        budget = await self._limits.budget(message.user_id)
        chosen = await self._chosen(message.chat_id)
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
            request = _with_choices(_request(message, url), chosen or ChatSettings(), message.audio)
            if store_ok and chosen is not None:
                try:
                    job_id = await enqueue_download(self._jobs, request, quick=await self._cache_hit(request))
                except StoreError as error:
                    log.warning("the store refused a link, trying again in the background: %s", error)
                    store_ok = False
                else:
                    if job_id is None:
                        report.already_handled.append(url)
                        continue
                    await self._announcements.accepted(request, job_id)
                    if budget is not None:
                        await budget.spend()
                    report.accepted.append(url)
                    queued = None if queued is None else queued + 1
                    continue
            # One refusal is enough to know the store is busy now: the rest of the message
            # waits in the background too, instead of holding this update for a busy timeout each.
            choose = None if chosen is not None else partial(self._choose, message.audio)
            self._retries.keep_trying(request, choose)
            report.deferred.append(url)
        return report

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
            log.warning("the per-user cap could not be read: %s", error)
            return None

    async def _chosen(self, chat_id: int) -> ChatSettings | None:
        """The chat's choices; None when the store cannot say now (the links then wait in the
        background and read them again there: a job is handled as the chat wanted it)."""
        try:
            return await self._choices.chat_settings(chat_id) or ChatSettings()
        except StoreError as error:
            log.warning("the chat's settings could not be read: %s", error)
            return None

    async def _choose(self, audio: bool | None, request: DownloadRequest) -> DownloadRequest:
        chosen = await self._choices.chat_settings(request.chat_id) or ChatSettings()
        return _with_choices(request, chosen, audio)

    async def _read_before(self, message: IncomingMessage) -> bool | None:
        """Only private edits re-run links, so only private messages are remembered; an edit of a
        message the bot never read (sent before it ran, in a chat it never saw, swept) is ignored
        (None). False: the store refused to remember the message, so it refuses writes now."""
        try:
            if not message.edited:
                if message.chat_type == PRIVATE:
                    await self._seen.remember_message(message.chat_id, message.message_id, self._clock.now())
                return True
            if await self._seen.knows_message(message.chat_id, message.message_id):
                return True
        except StoreError as error:
            if not message.edited:
                log.warning("the store refused to remember a message: %s", error)
                return False
            log.warning("an edit could not be checked against the messages read: %s", error)
        log.info("ignored an edit of a message the bot never read", extra={"chat_id": message.chat_id})
        return None


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


def _with_choices(request: DownloadRequest, chosen: ChatSettings, audio: bool | None) -> DownloadRequest:
    """The chat's choices travel with the job: it is handled as the chat wanted it when it came."""
    return replace(
        request,
        audio=chosen.audio_only if audio is None else audio,
        max_height=chosen.max_height,
        ask_long=chosen.ask_long_videos,
        ask_longer_than=chosen.ask_longer_than_seconds,
    )
