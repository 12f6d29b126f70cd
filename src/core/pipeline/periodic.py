"""The periodic jobs: yt-dlp's self-update, the blob sweep, and the sweep of the other caches."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field

from returns.result import Failure, Success

from core.jobs.registry import JobContext, JobFailure, JobOutcome
from core.media.blob_service import BlobService
from core.media.info_cache import InfoService
from core.pipeline.confirm import Confirmations
from ports.caches import HandledUrls
from ports.clock import Clock
from ports.media import Updater

log = logging.getLogger("vidrelay.jobs")
Runner = Callable[[JobContext], Awaitable[JobOutcome]]

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
    blobs: BlobService
    info: InfoService
    handled: HandledUrls
    confirmations: Confirmations
    clock: Clock
    update_status: UpdateStatus = field(default_factory=UpdateStatus)


def update_ytdlp(periodic: Periodic, updater: Updater) -> Runner:
    async def run(context: JobContext) -> JobOutcome:
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
            log.info("yt-dlp updated %s → %s", outcome.version_before, outcome.version_after)
            periodic.on_updated()
        return Success(None)

    return run


def _outcome(error: str | None, changed: bool) -> str:
    if error:
        return "failed"
    return "updated" if changed else "unchanged"


def sweep_blobs(periodic: Periodic) -> Runner:
    async def run(context: JobContext) -> JobOutcome:
        report = await periodic.blobs.sweep()
        log.info("blob sweep", extra=asdict(report))
        return Success(None)

    return run


def sweep_caches(periodic: Periodic) -> Runner:
    async def run(context: JobContext) -> JobOutcome:
        info = await periodic.info.sweep()
        handled = await periodic.handled.sweep_handled(periodic.clock.now() - HANDLED_URL_TTL_SECONDS)
        expired = await periodic.confirmations.expire()
        log.info("cache sweep", extra={"info": info, "handled_urls": handled, "expired_prompts": expired})
        return Success(None)

    return run
