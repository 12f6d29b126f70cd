"""Inline mode: `@bot <url>` in any chat.

A cached video (Telegram already has its file_id) is answered at once. Otherwise the user picks
a placeholder, and `download_inline` — a durable job like any other — downloads, uploads to the
cache chat to obtain a file_id, and swaps the placeholder's media in place.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from returns.result import Failure, Success

from core import texts
from core.blobs import blob_key
from core.jobs.registry import JobContext, JobFailure, JobOutcome
from core.pipeline.download import Services, api_failure, tool_failure, video_meta
from core.pipeline.request import InlineRequest
from ports.blobs import BlobRecord
from ports.caches import InfoCache
from ports.clock import Clock
from ports.media import VideoInfo
from ports.messenger import Button, Keyboard, MessengerError, VideoFile

log = logging.getLogger("vidrelay.inline")

DOWNLOAD_INLINE = "download_inline"
INFO_TTL_SECONDS = 6 * 3600.0
VARIANTS = ("full", "no_caption", "no_source")


@dataclass(frozen=True, slots=True)
class CachedVideo:
    info: VideoInfo
    record: BlobRecord
    file_id: str


def variant_caption(info: VideoInfo, variant: str) -> str | None:
    return None if variant == "no_caption" else texts.caption_for(info)


def variant_keyboard(url: str, variant: str) -> Keyboard | None:
    return None if variant == "no_source" else [[Button("🔗 Source", url=url)]]


class InlineLookup:
    """Answers an inline query from what is already known: no scrape, no download."""

    def __init__(self, cache: InfoCache, services: Services, clock: Clock) -> None:
        self._cache = cache
        self._s = services
        self._clock = clock

    async def cached(self, url: str) -> CachedVideo | None:
        entries = await self._cache.cached_info(url, self._clock.now() - INFO_TTL_SECONDS)
        videos = [e for e in entries or [] if e.has_video]
        if not videos:
            return None
        record = await self._s.blobs.find(blob_key(videos[0]))
        if record is None or record.file_id is None:
            return None
        return CachedVideo(videos[0], record, record.file_id)


class DownloadInline:
    def __init__(self, services: Services, cache_chat_id: int, upload_limit: int, timeout: float) -> None:
        self._s = services
        self._cache_chat_id = cache_chat_id
        self._limit = upload_limit
        self._timeout = timeout

    async def run(self, context: JobContext) -> JobOutcome:
        try:
            request = InlineRequest.from_payload(context.payload)
        except ValueError as error:
            return Failure(JobFailure(f"bad job payload: {error}", permanent=True))
        allowed = await self._s.guard.check(request.url)
        if isinstance(allowed, Failure):
            return Failure(JobFailure(f"refused: {allowed.failure()}", permanent=True, code="refused"))
        scraped = await self._s.info.scrape(request.url, timeout=self._timeout)
        if isinstance(scraped, Failure):
            return tool_failure(scraped.failure())
        videos = [e for e in scraped.unwrap() if e.has_video]
        if not videos:
            return Failure(JobFailure("No video found at this link", permanent=True, code="not_a_video"))
        return await self._deliver(request, videos[0])

    async def _deliver(self, request: InlineRequest, info: VideoInfo) -> JobOutcome:
        key = blob_key(info)
        record = await self._s.blobs.find(key)
        if record is None or record.file_id is None:
            fetched = await self._s.blobs.fetch(info, self._s.downloader, timeout=self._timeout)
            if isinstance(fetched, Failure):
                return tool_failure(fetched.failure())
            record = fetched.unwrap()
            uploaded = await self._upload(record, info)
            if isinstance(uploaded, Failure):
                return uploaded
        return await self._swap(request, info, record)

    async def _upload(self, record: BlobRecord, info: VideoInfo) -> JobOutcome:
        if (record.size or 0) > self._limit:
            return Failure(JobFailure(texts.too_large(record.size or 0), permanent=True, code="too_large"))
        path = self._s.blobs.path_of(record)
        if path is None:
            return Failure(JobFailure("the downloaded file vanished before the upload"))
        try:
            sent = await self._s.messenger.send_video(
                self._cache_chat_id, VideoFile(path), video_meta(record, info, None)
            )
        except MessengerError as error:
            return Failure(api_failure(error))
        await self._s.blobs.record_sent(record.key, sent.file_id, sent.file_unique_id)
        await self._s.blobs.release(record.key)
        return Success(None)

    async def _swap(self, request: InlineRequest, info: VideoInfo, record: BlobRecord) -> JobOutcome:
        refreshed = await self._s.blobs.find(record.key)
        file_id = refreshed.file_id if refreshed else None
        if file_id is None:
            return Failure(JobFailure("Telegram gave no file id for the upload"))
        meta = video_meta(record, info, variant_caption(info, request.variant))
        try:
            await self._s.messenger.edit_inline_video(
                request.inline_message_id,
                file_id,
                meta,
                keyboard=variant_keyboard(request.url, request.variant),
            )
        except MessengerError as error:
            return Failure(api_failure(error))
        return Success(None)
