"""The one list of job types vidrelay runs; a test asserts it exactly."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from core.jobs.hooks import DeadJob
from core.jobs.registry import JobType
from core.requests.job_names import DOWNLOAD_INLINE, DOWNLOAD_VIDEO, SWEEP_BLOBS, SWEEP_CACHES, UPDATE_YTDLP
from core.work.download.job import DownloadVideo
from core.work.inline import DownloadInline
from core.work.periodic import SWEEP_INTERVAL_SECONDS, SweepBlobs, SweepCaches, UpdateYtDlp
from core.work.rollback.watch import ReleaseWatch
from core.work.site_refusals import SiteRefusals

UPDATE_TIMEOUT_SECONDS = 900.0


DeadHook = Callable[[DeadJob], Awaitable[None]]


def job_types(
    *,
    download: DownloadVideo,
    inline: DownloadInline | None,
    update: UpdateYtDlp | None,
    sweep_blobs: SweepBlobs,
    sweep_caches: SweepCaches,
    download_timeout: float,
    refusals: SiteRefusals,
    releases: ReleaseWatch | None,
) -> list[JobType]:
    """`inline` only with a cache chat; the updater only with an interval. A video job's end
    reaches `refusals` after its chat heard it (a site's verdict is the operator's news too), and
    `releases` (with the updater): a link that failed on a rolled-back yt-dlp is requeued."""
    heard = [refusals.on_dead, *([releases.on_dead] if releases is not None else [])]
    types = [
        JobType(
            DOWNLOAD_VIDEO,
            download.run,
            timeout_seconds=download_timeout,
            on_retry=download.on_retry,
            on_dead=_then(download.on_dead, *heard),
            on_cancel=download.on_cancel,
        ),
        JobType(SWEEP_BLOBS, sweep_blobs.run, interval_seconds=SWEEP_INTERVAL_SECONDS),
        JobType(SWEEP_CACHES, sweep_caches.run, interval_seconds=SWEEP_INTERVAL_SECONDS),
    ]
    if inline is not None:
        types.append(
            JobType(
                DOWNLOAD_INLINE,
                inline.run,
                timeout_seconds=download_timeout,
                on_dead=_then(inline.on_dead, *heard),
            )
        )
    if update is not None and update.interval_seconds > 0:
        types.append(
            JobType(
                UPDATE_YTDLP,
                update.run,
                timeout_seconds=UPDATE_TIMEOUT_SECONDS,
                interval_seconds=update.interval_seconds,
            )
        )
    return types


def _then(*hooks: DeadHook) -> DeadHook:
    async def each(dead: DeadJob) -> None:
        for hook in hooks:
            await hook(dead)

    return each
