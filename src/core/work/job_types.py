"""The one list of job types vidrelay runs; a test asserts it exactly."""

from __future__ import annotations

from core.jobs.registry import JobType
from core.requests.job_names import DOWNLOAD_INLINE, DOWNLOAD_VIDEO, SWEEP_BLOBS, SWEEP_CACHES, UPDATE_YTDLP
from core.work.download.job import DownloadVideo
from core.work.inline import DownloadInline
from core.work.periodic import SWEEP_INTERVAL_SECONDS, Periodic, sweep_blobs, sweep_caches, update_ytdlp

UPDATE_TIMEOUT_SECONDS = 900.0


def job_types(
    download: DownloadVideo, inline: DownloadInline | None, periodic: Periodic, download_timeout: float
) -> list[JobType]:
    """`inline` only with a cache chat; the updater only with an interval."""
    types = [
        JobType(
            DOWNLOAD_VIDEO,
            download.run,
            timeout_seconds=download_timeout,
            on_retry=download.on_retry,
            on_dead=download.on_dead,
        ),
        JobType(SWEEP_BLOBS, sweep_blobs(periodic), interval_seconds=SWEEP_INTERVAL_SECONDS),
        JobType(SWEEP_CACHES, sweep_caches(periodic), interval_seconds=SWEEP_INTERVAL_SECONDS),
    ]
    if inline is not None:
        types.append(
            JobType(DOWNLOAD_INLINE, inline.run, timeout_seconds=download_timeout, on_dead=inline.on_dead)
        )
    if periodic.updater is not None and periodic.update_interval_seconds > 0:
        types.append(
            JobType(
                UPDATE_YTDLP,
                update_ytdlp(periodic, periodic.updater),
                timeout_seconds=UPDATE_TIMEOUT_SECONDS,
                interval_seconds=periodic.update_interval_seconds,
            )
        )
    return types
