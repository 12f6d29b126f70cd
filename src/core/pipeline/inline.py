"""`download_inline`: the video for an inline placeholder the user picked.

The path is the shared `Delivery`, told nothing on the way; what is this job's own is where the
video goes: uploaded to the cache chat for a file_id (unless Telegram has it already), which
then replaces the placeholder's media in place, with the variant the user chose.
"""

from __future__ import annotations

from returns.result import Failure, Success

from core import texts
from core.jobs.registry import JobContext, JobOutcome
from core.pipeline.delivery import Delivery, Destination, video_meta
from core.pipeline.failures import api_failure, bad_payload, too_large
from core.pipeline.report import Quiet
from core.pipeline.request import InlineRequest
from core.pipeline.services import PipelineConfig, Services
from core.pipeline.turns import VideoTurns
from ports.blobs import BlobRecord
from ports.media import VideoInfo
from ports.messenger import (
    Button,
    Keyboard,
    Messenger,
    MessengerError,
    SentVideo,
    StoredVideo,
    VideoFile,
    VideoMeta,
)

VARIANTS = ("full", "no_caption", "no_source")


def variant_caption(info: VideoInfo, variant: str) -> str | None:
    return None if variant == "no_caption" else texts.caption_for(info)


def variant_keyboard(url: str, variant: str) -> Keyboard | None:
    return None if variant == "no_source" else [[Button("🔗 Source", url=url)]]


class DownloadInline:
    def __init__(self, services: Services, cache_chat_id: int, upload_limit: int, timeout: float) -> None:
        self._s = services
        self._cache_chat_id = cache_chat_id
        config = PipelineConfig(upload_limit_bytes=upload_limit, ytdlp_timeout_seconds=timeout)
        self._delivery = Delivery(services, config)

    async def run(self, context: JobContext) -> JobOutcome:
        try:
            request = InlineRequest.from_payload(context.payload)
        except ValueError as error:
            return Failure(bad_payload(error))
        videos = await self._delivery.videos(request.url, Quiet())
        if isinstance(videos, Failure):
            return videos
        info = videos.unwrap()[0]
        placeholder = _Placeholder(request, info, self._s.messenger, self._cache_chat_id, self._s.turns)
        return await self._delivery.deliver(info, placeholder, Quiet())


class _Placeholder(Destination):
    def __init__(
        self,
        request: InlineRequest,
        info: VideoInfo,
        messenger: Messenger,
        cache_chat_id: int,
        turns: VideoTurns,
    ) -> None:
        self._request = request
        self._info = info
        self._messenger = messenger
        self._cache_chat_id = cache_chat_id
        self._turns = turns

    async def hold(self, duration: float | None, pinned_key: str | None) -> JobOutcome | None:
        return None  # the user asked for this very video

    async def too_large(self, size: int) -> JobOutcome:
        return Failure(too_large(size))

    def not_before(self, video: VideoFile | StoredVideo) -> float | None:
        # Only an upload is a message (to the cache chat); the swap by file_id is an inline edit.
        return None if isinstance(video, StoredVideo) else self._turns.not_before(self._cache_chat_id)

    async def send(self, video: VideoFile | StoredVideo, meta: VideoMeta) -> SentVideo | None:
        if isinstance(video, StoredVideo):
            return None  # the swap needs only the file_id
        return await self._messenger.send_video(self._cache_chat_id, video, meta)

    async def delivered(self, file_id: str, record: BlobRecord) -> JobOutcome:
        request = self._request
        meta = video_meta(record, self._info, variant_caption(self._info, request.variant))
        try:
            await self._messenger.edit_inline_video(
                request.inline_message_id,
                file_id,
                meta,
                keyboard=variant_keyboard(request.url, request.variant),
            )
        except MessengerError as error:
            return Failure(api_failure(error))
        return Success(None)
