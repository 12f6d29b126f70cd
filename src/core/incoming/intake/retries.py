"""A link the store refused for a reason that passes (locked, busy, a lost connection, a full
disk) is not dropped: it keeps being offered to the store in the background, with backoff, for a
bounded time, while polling goes on for everyone else. Only when that budget is spent does the
user hear about it — a reply asking to send it again in a while, or a reaction in a group.
Never silence, never a traceback.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from core import texts
from core.jobs.backoff import Backoff
from core.jobs.submitter import JobSubmitter
from core.jobs.tasks import first_of, settle
from core.lifecycle.retry_policy import Random, RetryPolicy
from core.requests.download import PRIVATE, DownloadRequest
from core.requests.job_names import DOWNLOAD_VIDEO
from core.urls import site_key
from ports.clock import Clock
from ports.errors import StoreError
from ports.jobs import HandledUrlGuard
from ports.messenger import Messenger, MessengerError

log = logging.getLogger("vidrelay.intake")

RETRY_POLICY = RetryPolicy(base_seconds=0.5, cap_seconds=10.0, jitter=0.5)
TELL_TIMEOUT_SECONDS = 10.0
Choose = Callable[[DownloadRequest], Awaitable[DownloadRequest]]
"""The chat's choices put on a request, read from the store (which may refuse that too)."""
Announce = Callable[[DownloadRequest, int], Awaitable[None]]
"""The link is a job now: its chat hears so (announce.py)."""


async def enqueue_download(
    jobs: JobSubmitter, request: DownloadRequest, *, quick: bool = False
) -> int | None:
    """The job for one link; None when this message's link already became one (guarded).
    `quick`: a cache hit, for the quick lane (ports.queue)."""
    job_id: int | None = await jobs.submit(
        DOWNLOAD_VIDEO,
        request.to_payload(),
        key=site_key(request.url),
        owner_id=request.user_id,
        requester=request.chat_id,
        quick=quick,
        guard=HandledUrlGuard(request.chat_id, request.message_id, request.url),
    )
    return job_id


class EnqueueRetries:
    def __init__(
        self,
        *,
        jobs: JobSubmitter,
        announce: Announce,
        messenger: Messenger,
        clock: Clock,
        random: Random,
        budget_seconds: float = 60.0,
    ) -> None:
        self._jobs = jobs
        self._announce = announce
        self._messenger = messenger
        self._clock = clock
        self._random = random
        self._budget = budget_seconds
        self._trying: set[asyncio.Task[None]] = set()

    @property
    def waiting(self) -> int:
        return len(self._trying)

    def keep_trying(self, request: DownloadRequest, choose: Choose | None = None) -> None:
        """Offer `request` to the store until it lands; `choose` first when the chat's choices
        could not be read yet."""
        task = asyncio.create_task(self._keep_trying(request, choose), name="vidrelay-intake-retry")
        self._trying.add(task)
        task.add_done_callback(self._trying.discard)

    async def close(self, grace_seconds: float) -> None:
        """Shutdown: links still being tried get the grace to land; the rest are told to resend."""
        trying = list(self._trying)
        if trying:
            await first_of(asyncio.wait(trying), self._clock.sleep(grace_seconds))
        for task in trying:
            task.cancel()
        await settle(trying)

    async def _keep_trying(self, request: DownloadRequest, choose: Choose | None) -> None:
        job_id = await self._until_queued(request, choose)
        if job_id is not None:  # queued: a stop from now on must not ask for the link again
            await self._announce(request, job_id)

    async def _until_queued(self, request: DownloadRequest, choose: Choose | None) -> int | None:
        """The new job's id; None when there is none to announce: the message's link was a job
        already, or it was not queued and its user was asked to send it again."""
        fields = {"chat_id": request.chat_id, "url": request.url}
        started, backoff = self._clock.now(), Backoff(RETRY_POLICY, self._random)
        try:
            while (left := self._budget - (self._clock.now() - started)) > 0:
                await self._clock.sleep(min(backoff.next(), left))
                try:
                    if choose is not None:
                        request, choose = await choose(request), None
                    job_id = await enqueue_download(self._jobs, request)
                except StoreError as error:
                    log.warning("link not queued yet, the store refused it: %s", error, extra=fields)
                    continue
                log.info("link queued once the store took it", extra=fields)
                return job_id
            log.error(
                "link not queued: the store refused it for %.0fs; asking to resend",
                self._budget,
                extra=fields,
            )
        except asyncio.CancelledError:
            log.error("link not queued before the bot stopped; asking to resend", extra=fields)  # noqa: TRY400 - a stop, not an error to trace
            await self.tell_to_resend(request)
            raise
        except Exception:
            log.exception("link not queued; asking to resend", extra=fields)
        await self.tell_to_resend(request)
        return None

    async def tell_to_resend(self, request: DownloadRequest) -> None:
        await first_of(self._tell(request), self._clock.sleep(TELL_TIMEOUT_SECONDS))

    async def _tell(self, request: DownloadRequest) -> None:
        try:
            if request.chat_type == PRIVATE:
                await self._messenger.send_text(
                    request.chat_id, texts.send_again_later(), reply_to=request.message_id
                )
            else:
                await self._messenger.react(request.chat_id, request.message_id, texts.BUSY_REACTION)
        except MessengerError as error:
            log.warning("could not ask to resend: %s", error.description, extra={"chat_id": request.chat_id})
