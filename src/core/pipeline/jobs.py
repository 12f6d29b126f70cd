"""The one list of job types vidrelay runs; a test asserts it exactly."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from returns.result import Failure, Success

from core.jobs.registry import JobContext, JobFailure, JobOutcome, JobType
from core.media.blob_store import BlobStore
from core.media.info_cache import InfoService
from core.pipeline.confirm import Confirmations
from core.pipeline.download import DOWNLOAD_VIDEO, DownloadVideo
from core.pipeline.inline import DOWNLOAD_INLINE, DownloadInline
from ports.caches import HandledUrls
from ports.clock import Clock
from ports.media import Updater

log = logging.getLogger("vidrelay.jobs")
Runner = Callable[[JobContext], Awaitable[JobOutcome]]

UPDATE_YTDLP = "update_ytdlp"
SWEEP_BLOBS = "sweep_blobs"
SWEEP_CACHES = "sweep_caches"
HANDLED_URL_TTL_SECONDS = 7 * 24 * 3600.0
SWEEP_INTERVAL_SECONDS = 3600.0


@dataclass
class UpdateStatus:
    """What /status says about the updater."""

    checked_at: float | None = None
    version: str | None = None
    error: str | None = None
    outcomes: Counter[str] = field(default_factory=Counter)
    """Checks by outcome since start: updated, unchanged, failed (for the metrics)."""

    def describe(self) -> str:
        if self.checked_at is None:
            return "never"
        when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(self.checked_at))
        return f"{when} ({'failed: ' + self.error if self.error else 'ok'})"


@dataclass(frozen=True, slots=True)
class Periodic:
    updater: Updater | None
    update_interval_seconds: float
    on_updated: Callable[[], None]
    """A new yt-dlp may have fixed a broken extractor: close the circuit breakers."""
    blobs: BlobStore
    info: InfoService
    handled: HandledUrls
    confirmations: Confirmations
    clock: Clock
    update_status: UpdateStatus = field(default_factory=UpdateStatus)


def job_types(
    download: DownloadVideo, inline: DownloadInline | None, periodic: Periodic, download_timeout: float
) -> list[JobType]:
    types = [
        JobType(
            DOWNLOAD_VIDEO,
            download.run,
            timeout_seconds=download_timeout,
            on_retry=download.on_retry,
            on_dead=download.on_dead,
        ),
        JobType(SWEEP_BLOBS, _sweep_blobs(periodic), interval_seconds=SWEEP_INTERVAL_SECONDS),
        JobType(SWEEP_CACHES, _sweep_caches(periodic), interval_seconds=SWEEP_INTERVAL_SECONDS),
    ]
    if inline is not None:
        types.append(JobType(DOWNLOAD_INLINE, inline.run, timeout_seconds=download_timeout))
    if periodic.updater is not None and periodic.update_interval_seconds > 0:
        types.append(
            JobType(
                UPDATE_YTDLP,
                _update(periodic),
                timeout_seconds=900,
                interval_seconds=periodic.update_interval_seconds,
            )
        )
    return types


def _update(periodic: Periodic) -> Runner:
    updater = periodic.updater
    assert updater is not None

    async def update_ytdlp(context: JobContext) -> JobOutcome:
        outcome = await updater.update()
        status = periodic.update_status
        status.checked_at, status.error = periodic.clock.now(), outcome.error
        status.version = outcome.version_after or outcome.version_before
        status.outcomes[_outcome(outcome.error, outcome.changed)] += 1
        if outcome.error:
            return Failure(
                JobFailure(f"yt-dlp update failed, keeping {outcome.version_before}: {outcome.error}")
            )
        if outcome.changed:
            log.warning("yt-dlp updated %s → %s", outcome.version_before, outcome.version_after)
            periodic.on_updated()
        return Success(None)

    return update_ytdlp


def _outcome(error: str | None, changed: bool) -> str:
    if error:
        return "failed"
    return "updated" if changed else "unchanged"


def _sweep_blobs(periodic: Periodic) -> Runner:
    async def sweep_blobs(context: JobContext) -> JobOutcome:
        report = await periodic.blobs.sweep()
        log.info("blob sweep: %s", report)
        return Success(None)

    return sweep_blobs


def _sweep_caches(periodic: Periodic) -> Runner:
    async def sweep_caches(context: JobContext) -> JobOutcome:
        info = await periodic.info.sweep()
        handled = await periodic.handled.sweep_handled(periodic.clock.now() - HANDLED_URL_TTL_SECONDS)
        expired = await periodic.confirmations.expire()
        log.info("cache sweep: info=%d handled_urls=%d expired_prompts=%d", info, handled, expired)
        return Success(None)

    return sweep_caches
