"""Answering an inline query from what is already known: no scrape, no download."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.blob_names import blob_key
from core.media.sound import sound_of
from core.pipeline.services import Services
from ports.blobs import BlobRecord
from ports.media import VideoInfo


@dataclass(frozen=True, slots=True)
class CachedVideo:
    info: VideoInfo
    record: BlobRecord
    file_id: str


class InlineLookup:
    def __init__(self, services: Services) -> None:
        self._s = services

    async def cached(self, url: str) -> CachedVideo | None:
        """The video Telegram already has for `url`, or None: the user gets a placeholder."""
        return await self._known(url, blob_key)

    async def cached_audio(self, url: str) -> CachedVideo | None:
        """The same for the video's sound (`file_id` is the audio's)."""
        return await self._known(url, lambda info: blob_key(sound_of(info)))

    async def _known(self, url: str, key_of: Callable[[VideoInfo], str]) -> CachedVideo | None:
        videos = [e for e in await self._s.info.cached(url) or [] if e.has_video]
        if not videos:
            return None
        record = await self._s.blobs.find(key_of(videos[0]))
        if record is None or record.file_id is None:
            return None
        return CachedVideo(videos[0], record, record.file_id)
