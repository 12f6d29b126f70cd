"""The one path a link takes to become a video in Telegram, for every job that delivers one.

guard → scrape (cached) → sent by file_id when Telegram has the video → size check → one shared
download → size check on the bytes → upload → the file_id recorded and the bytes released. What
is a job's own stays behind two ports: its `Destination` (where the video goes, and what a long or
too large video means there) and its `Report` (what the chat hears on the way).
"""

from __future__ import annotations

from typing import Protocol

from returns.result import Failure, Result, Success

from core.blobs import blob_key
from core.jobs.registry import JobFailure, JobOutcome
from core.pipeline.failures import api_failure, no_video, refused, tool_failure, vanished
from core.pipeline.services import PipelineConfig, Services
from core.telegram_errors import is_wrong_file_id
from ports.blobs import BlobRecord
from ports.media import OutputSink, Progress, ToolFailure, VideoInfo
from ports.messenger import MessengerError, SentVideo, StoredVideo, VideoFile, VideoMeta

Sent = Result[SentVideo | None, MessengerError]


class Report(Protocol):
    """What the chat hears while its video is on the way."""

    @property
    def verbose(self) -> bool:
        """yt-dlp's output goes into the report, and the caches are bypassed."""
        ...

    async def scraping(self) -> None: ...

    def found(self, info: VideoInfo) -> None: ...

    async def downloading(self) -> None: ...

    def progress(self, progress: Progress) -> None: ...

    def output(self, line: str) -> None: ...

    async def uploading(self, size: int) -> None: ...


class Destination(Protocol):
    """Where the video goes."""

    async def hold(self, duration: float | None, pinned_key: str | None) -> JobOutcome | None:
        """An outcome when the video must not go yet (a group is asked about a long video first);
        `pinned_key`: bytes already on disk that the wait must keep."""
        ...

    async def too_large(self, size: int) -> JobOutcome: ...

    async def send(self, video: VideoFile | StoredVideo, meta: VideoMeta) -> SentVideo | None:
        """Raises MessengerError. None: nothing needed sending, the stored file_id is all it takes."""
        ...

    async def delivered(self, file_id: str, record: BlobRecord) -> JobOutcome:
        """Telegram has the video as `file_id`, recorded already: the job's last step."""
        ...


class Quiet(Report):
    """Nobody is told anything on the way (inline mode)."""

    @property
    def verbose(self) -> bool:
        return False

    async def scraping(self) -> None:
        pass

    def found(self, info: VideoInfo) -> None:
        pass

    async def downloading(self) -> None:
        pass

    def progress(self, progress: Progress) -> None:
        pass

    def output(self, line: str) -> None:
        pass

    async def uploading(self, size: int) -> None:
        pass


class Delivery:
    def __init__(self, services: Services, config: PipelineConfig) -> None:
        self._s = services
        self._limit = config.upload_limit_bytes
        self._timeout = config.ytdlp_timeout_seconds

    async def videos(self, url: str, report: Report) -> Result[list[VideoInfo], JobFailure]:
        """The videos behind `url` (photo items left out), if the bot may fetch it; never none."""
        allowed = await self._s.guard.check(url)
        if isinstance(allowed, Failure):
            return Failure(refused(allowed.failure()))
        scraped = await self._scrape(url, report)
        if isinstance(scraped, Failure):
            return Failure(tool_failure(scraped.failure()))
        videos = [e for e in scraped.unwrap() if e.has_video]
        return Success(videos) if videos else Failure(no_video())

    async def _scrape(self, url: str, report: Report) -> Result[list[VideoInfo], ToolFailure]:
        """Cached entries without a word to the chat (a cache hit is just the video)."""
        cached = None if report.verbose else await self._s.info.cached(url)
        if cached:
            return Success(cached)
        await report.scraping()
        return await self._s.info.scrape(
            url,
            timeout=self._timeout,
            bypass_cache=report.verbose,
            verbose=report.verbose,
            on_output=_output_of(report),
        )

    async def deliver(self, info: VideoInfo, to: Destination, report: Report) -> JobOutcome:
        key = blob_key(info)
        record = await self._s.blobs.find(key)
        known_duration = info.duration if info.duration is not None else record.duration if record else None
        # Asked even when Telegram has it: the question is about the group's screen, not bandwidth.
        pinned = key if record is not None and record.file_name is not None else None
        if (held := await to.hold(known_duration, pinned)) is not None:
            return held
        if record is not None and record.file_id is not None:
            sent = await _send(to, StoredVideo(record.file_id), record, info)
            if not (isinstance(sent, Failure) and is_wrong_file_id(sent.failure())):
                return await self._after_send(to, record, sent, record.file_id)
            await self._s.blobs.clear_file_id(key)
        report.found(info)
        if info.filesize is not None and info.filesize > self._limit:
            return await to.too_large(info.filesize)
        await report.downloading()
        fetched = await self._s.blobs.fetch(
            info,
            self._s.downloader,
            timeout=self._timeout,
            verbose=report.verbose,
            on_progress=report.progress,
            on_output=_output_of(report),
        )
        if isinstance(fetched, Failure):
            return Failure(tool_failure(fetched.failure()))
        return await self._upload(info, fetched.unwrap(), to, report)

    async def _upload(
        self, info: VideoInfo, record: BlobRecord, to: Destination, report: Report
    ) -> JobOutcome:
        size = record.size or 0
        if size > self._limit:
            await self._s.blobs.release(record.key)
            return await to.too_large(size)
        if info.duration is None and (held := await to.hold(record.duration, record.key)) is not None:
            return held  # the probe measured a duration the scrape did not know
        path = self._s.blobs.path_of(record)
        if path is None:
            return Failure(vanished())
        await report.uploading(size)
        sent = await _send(to, VideoFile(path), record, info)
        return await self._after_send(to, record, sent, None)

    async def _after_send(
        self, to: Destination, record: BlobRecord, sent: Sent, stored_file_id: str | None
    ) -> JobOutcome:
        if isinstance(sent, Failure):
            return Failure(api_failure(sent.failure()))
        video = sent.unwrap()
        if video is not None:
            await self._s.blobs.record_sent(record.key, video.file_id, video.file_unique_id)
        file_id = video.file_id if video is not None else stored_file_id
        if file_id is None:
            raise TypeError("Destination.send must return the sent video for an upload")
        await self._s.blobs.release(record.key)
        return await to.delivered(file_id, record)


def video_meta(record: BlobRecord, info: VideoInfo, caption: str | None) -> VideoMeta:
    duration = record.duration if record.duration is not None else info.duration
    return VideoMeta(
        duration=round(duration) if duration is not None else None,
        width=record.width or info.width,
        height=record.height or info.height,
        caption=caption,
    )


async def _send(to: Destination, video: VideoFile | StoredVideo, record: BlobRecord, info: VideoInfo) -> Sent:
    try:
        return Success(await to.send(video, video_meta(record, info, caption=None)))
    except MessengerError as error:
        return Failure(error)


def _output_of(report: Report) -> OutputSink | None:
    return report.output if report.verbose else None
