"""The path a link takes to become its sound in Telegram (`/audio`, a chat's audio-only choice,
the inline "🎵 Audio only" result).

The same guard and scrape as a video (`video.Delivery.videos`), then: sent by file_id when Telegram has
the sound → one shared download of the sound alone (its own blob key, see core.media.sound) →
size check on the bytes → upload with the cover as its thumbnail → the file_id recorded and the
bytes released. A long sound never asks first: it is one message with a player, not a screenful.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager, nullcontext
from pathlib import Path

from returns.result import Failure, Result, Success

from core.blob_names import blob_key
from core.jobs.outcome import Deferred, JobOutcome
from core.media.blob_service import BlobService
from core.media.sound import SoundFetcher, sound_of
from core.media.thumbnails import Thumbnails
from core.telegram_errors import is_wrong_file_id
from core.work.delivery.destination import AudioDestination
from core.work.delivery.failures import vanished
from core.work.delivery.report import Report
from core.work.delivery.sending import after_send, fetch_bytes, refuse_oversize, send_reported
from ports.blobs import BlobRecord
from ports.clock import Clock
from ports.media import VideoInfo
from ports.messenger import AudioFile, AudioMeta, MessengerError, SentAudio, StoredAudio

SentSound = Result[SentAudio | None, MessengerError]


class AudioDelivery:
    def __init__(
        self,
        *,
        blobs: BlobService,
        sounds: SoundFetcher,
        thumbnails: Thumbnails | None,
        clock: Clock,
        upload_limit_bytes: int,
        ytdlp_timeout_seconds: float,
    ) -> None:
        """`thumbnails`: what takes the sound file's cover for its thumbnail (None: no cover)."""
        self._blobs = blobs
        self._sounds = sounds
        self._thumbnails = thumbnails
        self._clock = clock
        self._limit = upload_limit_bytes
        self._timeout = ytdlp_timeout_seconds

    async def deliver(self, info: VideoInfo, to: AudioDestination, report: Report) -> JobOutcome:
        sound = sound_of(info)
        key = blob_key(sound)
        record = await self._blobs.find(key)
        report.found(info)  # a cache hit's log too ends on what the sound is from
        if record is not None and record.file_id is not None:
            stored = StoredAudio(record.file_id)
            if (later := to.not_before(stored)) is not None:
                return Success(Deferred(later))
            sent = await _send(to, stored, audio_meta(record, info), report)
            if not (isinstance(sent, Failure) and is_wrong_file_id(sent.failure())):
                return await self._after_send(to, record, sent, record.file_id, report)
            await self._blobs.clear_file_id(key)
        await report.downloading()
        async with self._blobs.holding(key):
            fetched = await fetch_bytes(self._blobs, sound, self._sounds, self._timeout, report, to)
            if not isinstance(fetched, BlobRecord):
                return fetched
            return await self._upload(info, fetched, to, report)

    async def _upload(
        self, info: VideoInfo, record: BlobRecord, to: AudioDestination, report: Report
    ) -> JobOutcome:
        if (refused := await refuse_oversize(self._blobs, record, self._limit, report, to)) is not None:
            return refused
        path = self._blobs.path_of(record)
        if path is None:
            return Failure(vanished())
        upload = AudioFile(path)
        if (later := to.not_before(upload)) is not None:
            return Success(Deferred(later))  # the bytes stay on disk for the next turn
        await report.uploading(record.size or 0)
        async with self._cover(path) as cover:
            sent = await _send(to, upload, audio_meta(record, info, cover), report)
        return await self._after_send(to, record, sent, None, report)

    def _cover(self, path: Path) -> AbstractAsyncContextManager[Path | None]:
        """The sound file's cover (the site's picture, embedded at download) as its thumbnail: the
        "frame" at 0 s of the file's one picture stream; None when it has none."""
        if self._thumbnails is None:
            return nullcontext(None)
        return self._thumbnails.of(path, None)

    async def _after_send(
        self,
        to: AudioDestination,
        record: BlobRecord,
        sent: SentSound,
        stored_file_id: str | None,
        report: Report,
    ) -> JobOutcome:
        return await after_send(self._blobs, self._clock, to, record, sent, stored_file_id, report)


def audio_meta(
    record: BlobRecord, info: VideoInfo, thumbnail: Path | None = None, caption: str | None = None
) -> AudioMeta:
    duration = record.duration if record.duration is not None else info.duration
    return AudioMeta(
        duration=round(duration) if duration is not None else None,
        title=info.title or None,
        performer=info.performer,
        caption=caption,
        thumbnail=thumbnail,
    )


async def _send(
    to: AudioDestination, audio: AudioFile | StoredAudio, meta: AudioMeta, report: Report
) -> SentSound:
    return await send_reported(report, lambda: to.send_audio(audio, meta))
