"""The periodic jobs: yt-dlp's self-update, the blob sweep, and the sweep of the other caches.

Each is a job of its own with what it needs; the engine enqueues each at boot and then every
interval (job_types.py), never a second while one waits or runs.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection
from dataclasses import asdict

from returns.result import Failure, Success

from core.jobs.context import JobContext
from core.jobs.outcome import JobFailure, JobOutcome
from core.media.blob_service import BlobService
from core.media.info_cache import InfoService
from core.updater_status import UpdateStatus
from ports.caches import HandledUrls
from ports.clock import Clock
from ports.inbox import UpdateInbox
from ports.media import Updater

log = logging.getLogger("vidrelay.jobs")

HANDLED_URL_TTL_SECONDS = 7 * 24 * 3600.0
HANDLED_UPDATE_TTL_SECONDS = 2 * 24 * 3600.0
"""A handled update's inbox row outlives Telegram's own memory of it (24 h): a batch handed out
again is recognised for as long as Telegram may hand it out."""
SWEEP_INTERVAL_SECONDS = 3600.0


class UpdateYtDlp:
    def __init__(
        self,
        *,
        updater: Updater,
        interval_seconds: float,
        on_updated: Callable[[], None],
        follow_rollbacks: Callable[[], Awaitable[Collection[str]]],
        status: UpdateStatus,
        clock: Clock,
    ) -> None:
        """`on_updated`: a new yt-dlp may have fixed a broken extractor (the circuit breakers
        close); `follow_rollbacks`: leave the version in use if it was rolled back, and name the
        versions rolled back, which no update installs again (`ReleaseWatch.follow`); `status`:
        what /status and /metrics say about the updater."""
        self.interval_seconds = interval_seconds
        self._updater = updater
        self._on_updated = on_updated
        self._follow_rollbacks = follow_rollbacks
        self._status = status
        self._clock = clock

    async def run(self, context: JobContext) -> JobOutcome:
        outcome = await self._updater.update(avoid=await self._follow_rollbacks())
        status = self._status
        status.checked_at, status.error = self._clock.now(), outcome.error
        status.version = outcome.version_after or outcome.version_before
        status.outcomes[_outcome(outcome.error, outcome.changed)] += 1
        if outcome.error:
            return Failure(
                JobFailure(f"yt-dlp update failed, keeping {outcome.version_before}: {outcome.error}")
            )
        if outcome.changed:
            log.info("yt-dlp updated %s → %s", outcome.version_before, outcome.version_after)
            self._on_updated()
        return Success(None)


def _outcome(error: str | None, changed: bool) -> str:
    if error:
        return "failed"
    return "updated" if changed else "unchanged"


class SweepBlobs:
    def __init__(self, blobs: BlobService) -> None:
        self._blobs = blobs

    async def run(self, context: JobContext) -> JobOutcome:
        report = await self._blobs.sweep()
        log.info("blob sweep", extra=asdict(report))
        return Success(None)


class SweepCaches:
    def __init__(
        self,
        *,
        info: InfoService,
        handled: HandledUrls,
        inbox: UpdateInbox,
        expire_prompts: Callable[[], Awaitable[int]],
        clock: Clock,
    ) -> None:
        """`expire_prompts`: long-video prompts nobody answered lapse (`Confirmations.expire`)."""
        self._info = info
        self._handled = handled
        self._inbox = inbox
        self._expire_prompts = expire_prompts
        self._clock = clock

    async def run(self, context: JobContext) -> JobOutcome:
        info = await self._info.sweep()
        handled = await self._handled.sweep_handled(self._clock.now() - HANDLED_URL_TTL_SECONDS)
        updates = await self._inbox.sweep_inbox(self._clock.now() - HANDLED_UPDATE_TTL_SECONDS)
        expired = await self._expire_prompts()
        log.info(
            "cache sweep",
            extra={
                "info": info,
                "handled_urls": handled,
                "handled_updates": updates,
                "expired_prompts": expired,
            },
        )
        return Success(None)
