"""Is a link's video (or its sound) one Telegram already has? Then it is sent by its file_id:
no scrape, no download, no upload. Read from the caches only, so a handler may ask."""

from __future__ import annotations

from dataclasses import dataclass

from core.blob_names import blob_key
from core.media.blob_service import BlobService
from core.media.info_cache import InfoService
from core.media.sound import sound_of
from ports.blobs import BlobRecord
from ports.media import VideoInfo


@dataclass(frozen=True, slots=True)
class CachedVideo:
    info: VideoInfo
    record: BlobRecord
    file_id: str
    alone: bool
    """The link has this one video (a post of several fans out into a job per video)."""


class KnownVideos:
    def __init__(self, *, info: InfoService, blobs: BlobService) -> None:
        self._info = info
        self._blobs = blobs

    async def known(self, url: str, *, sound: bool = False) -> CachedVideo | None:
        """The video (`sound`: its sound) Telegram already has for `url`, or None."""
        videos = [e for e in await self._info.cached(url) or [] if e.has_video]
        if not videos:
            return None
        record = await self._blobs.find(blob_key(sound_of(videos[0]) if sound else videos[0]))
        if record is None or record.file_id is None:
            return None
        return CachedVideo(videos[0], record, record.file_id, alone=len(videos) == 1)
