"""`download_inline`: the video (or the sound) for an inline placeholder the user picked.

The path is the shared `Delivery` (`AudioDelivery` for "🎵 Audio only"), told nothing on the way;
what is this job's own is where the file goes: uploaded to the cache chat for a file_id (unless
Telegram has it already), which then replaces the placeholder's content in place, with the
variant the user chose. A job that fails for good turns the placeholder into a 💥 line with the
reason: it is never left saying ⏳.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from returns.result import Failure, Success

from core import texts
from core.jobs.context import JobContext
from core.jobs.hooks import DeadJob
from core.jobs.outcome import JobOutcome
from core.requests.inline import AUDIO_VARIANT, InlineRequest
from core.texts.captions import variant_caption
from core.texts.words import Words
from core.work.delivery.audio import AudioDelivery, audio_meta
from core.work.delivery.destination import AudioDestination, Destination, Outgoing
from core.work.delivery.failures import api_failure, bad_payload, too_large
from core.work.delivery.outage import TelegramOutages
from core.work.delivery.report import Quiet
from core.work.delivery.sending import video_meta
from core.work.delivery.turns import VideoTurns
from core.work.delivery.video import Delivery
from core.work.fenced import FencedMessengers
from ports.blobs import BlobRecord
from ports.language import Languages
from ports.media import VideoInfo
from ports.messenger import (
    AlbumItem,
    AudioFile,
    AudioMeta,
    Button,
    Keyboard,
    Messenger,
    MessengerError,
    SentAudio,
    SentVideo,
    StoredAudio,
    StoredVideo,
    VideoFile,
    VideoMeta,
)

log = logging.getLogger("vidrelay.inline")


def variant_keyboard(url: str, variant: str, words: Words) -> Keyboard | None:
    """The audio comes with its source, like the full video."""
    return None if variant == "no_source" else [[Button(words.say(texts.SOURCE_BUTTON), url=url)]]


class DownloadInline:
    def __init__(
        self,
        *,
        delivery: Delivery,
        audio: AudioDelivery,
        messenger: Messenger,
        messengers: FencedMessengers,
        turns: VideoTurns,
        cache_chat_id: int,
        outages: TelegramOutages,
        languages: Languages,
    ) -> None:
        """`delivery`, `audio`: the download job's own, so both refuse alike before a byte (the
        upload limit, the download cap) and wait alike for yt-dlp; `messengers`: what an attempt
        speaks through (fenced), `messenger`: the 💥 after the row is buried."""
        self._delivery = delivery
        self._audio = audio
        self._messenger = messenger
        self._messengers = messengers
        self._outages = outages
        self._turns = turns
        self._cache_chat_id = cache_chat_id
        self._languages = languages

    async def run(self, context: JobContext) -> JobOutcome:
        return await self._outages.settle(context, await self._run(context))

    async def _run(self, context: JobContext) -> JobOutcome:
        try:
            request = InlineRequest.from_payload(context.payload)
        except ValueError as error:
            return Failure(bad_payload(error))
        videos = await self._delivery.videos(request.url, Quiet())
        if isinstance(videos, Failure):
            return videos
        info = videos.unwrap()[0]
        messenger = self._messengers.for_attempt(context.fence)
        words = Words.of(self._languages, request.language)
        if request.variant == AUDIO_VARIANT:
            sound = _SoundPlaceholder(request, info, messenger, self._cache_chat_id, self._turns, words)
            return await self._audio.deliver(info, sound, Quiet())
        placeholder = _Placeholder(request, info, messenger, self._cache_chat_id, self._turns, words)
        return await self._delivery.deliver(info, placeholder, Quiet())

    async def on_dead(self, dead: DeadJob) -> None:
        try:
            request = InlineRequest.from_payload(dead.job.payload)
        except ValueError:
            return
        words = Words.of(self._languages, request.language)
        try:
            await self._messenger.edit_inline_text(
                request.inline_message_id,
                words.failed(dead.reason).lstrip("\n"),
                keyboard=variant_keyboard(request.url, request.variant, words),
            )
        except MessengerError as error:
            log.warning("could not tell an inline placeholder it failed", exc_info=error)


class _Placeholder(Destination):
    def __init__(
        self,
        request: InlineRequest,
        info: VideoInfo,
        messenger: Messenger,
        cache_chat_id: int,
        turns: VideoTurns,
        words: Words,
    ) -> None:
        self._request = request
        self._words = words
        self._info = info
        self._messenger = messenger
        self._cache_chat_id = cache_chat_id
        self._turns = turns

    async def hold(self, duration: float | None, pinned_key: str | None) -> JobOutcome | None:
        return None  # the user asked for this very video

    async def too_large(self, size: int, *, max_parts: int | None = None) -> JobOutcome:
        return Failure(too_large(size))

    def not_before(self, outgoing: Outgoing) -> float | None:
        # Only an upload is a message (to the cache chat); the swap by file_id is an inline edit.
        stored = isinstance(outgoing, StoredVideo | StoredAudio)
        return None if stored else self._turns.not_before(self._cache_chat_id)

    async def send(self, video: VideoFile | StoredVideo, meta: VideoMeta) -> SentVideo | None:
        if isinstance(video, StoredVideo):
            return None  # the swap needs only the file_id
        return await self._messenger.send_video(self._cache_chat_id, video, meta)

    @property
    def takes_albums(self) -> bool:
        return False  # an inline message holds one video: one past the limit is too large here

    async def send_album(self, videos: Sequence[AlbumItem]) -> list[SentVideo]:
        raise TypeError("an inline placeholder takes no album")

    def part_caption(self, index: int, count: int) -> str:
        raise TypeError("an inline placeholder takes no album")

    async def delivered(self, file_id: str, record: BlobRecord) -> JobOutcome:
        request = self._request
        meta = video_meta(record, self._info, variant_caption(self._info, request.variant))
        try:
            await self._messenger.edit_inline_video(
                request.inline_message_id,
                file_id,
                meta,
                keyboard=variant_keyboard(request.url, request.variant, self._words),
            )
        except MessengerError as error:
            return Failure(api_failure(error))
        return Success(None)


class _SoundPlaceholder(_Placeholder, AudioDestination):
    """The "🎵 Audio only" placeholder: the sound goes up to the cache chat and is swapped in."""

    async def send_audio(self, audio: AudioFile | StoredAudio, meta: AudioMeta) -> SentAudio | None:
        if isinstance(audio, StoredAudio):
            return None  # the swap needs only the file_id
        return await self._messenger.send_audio(self._cache_chat_id, audio, meta)

    async def delivered(self, file_id: str, record: BlobRecord) -> JobOutcome:
        request = self._request
        try:
            await self._messenger.edit_inline_audio(
                request.inline_message_id,
                file_id,
                audio_meta(record, self._info),
                keyboard=variant_keyboard(request.url, request.variant, self._words),
            )
        except MessengerError as error:
            return Failure(api_failure(error))
        return Success(None)
