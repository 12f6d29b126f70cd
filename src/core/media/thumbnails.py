"""A preview picture for each upload: a frame ffmpeg takes from the bytes about to be sent.

Made in a staging folder of its own just before the upload and removed right after it, so no
second file per blob has to be kept, swept or pinned (an upload after a confirmation 6 h later
takes its frame then). A frame that cannot be taken only means no thumbnail: Telegram then makes
its own where it can.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from ports.blob_files import BlobFiles
from ports.errors import BlobFilesError
from ports.transcoder import Transcoder

log = logging.getLogger("vidrelay.thumbnails")

THUMBNAIL_TIMEOUT_SECONDS = 30.0
FRAME_AT_SHARE = 0.1
"""A tenth into the video, at most FRAME_AT_MAX_SECONDS: past a black or title first frame."""
FRAME_AT_MAX_SECONDS = 5.0


def frame_at(duration: float | None) -> float:
    if duration is None or duration <= 0:
        return 0.0
    return min(duration * FRAME_AT_SHARE, FRAME_AT_MAX_SECONDS)


class Thumbnails:
    def __init__(self, transcoder: Transcoder, files: BlobFiles) -> None:
        self._transcoder = transcoder
        self._files = files

    @contextlib.asynccontextmanager
    async def of(self, video: Path, duration: float | None) -> AsyncIterator[Path | None]:
        """The thumbnail of `video` while the block runs (None when none could be made)."""
        try:
            folder = await self._files.new_staging("thumbnail")
        except BlobFilesError as error:
            log.warning("no staging folder for a thumbnail; sending without one", exc_info=error)
            yield None
            return
        try:
            yield await self._transcoder.thumbnail(
                video,
                folder / "thumbnail.jpg",
                at_seconds=frame_at(duration),
                timeout=THUMBNAIL_TIMEOUT_SECONDS,
            )
        finally:
            try:
                await self._files.remove_staging(folder)
            except BlobFilesError:
                log.warning("thumbnail folder %s not removed (boot clears it)", folder, exc_info=True)
