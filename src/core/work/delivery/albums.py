"""A video past the upload limit, sent as its parts (core.media.part_blobs) in albums.

Each part goes with its thumbnail and its caption ("Part 1/3"), by file_id where Telegram has it
and uploaded where it does not; at most MAX_ALBUM_ITEMS to an album, the parts shared evenly over
as few albums as that takes. Each part's file_id is recorded as its album lands, and its bytes are
released after the last album, so a repeat of the link sends every part by id. The chat's pacing
counts an album as the messages it is. Albums after the first that fail leave the first sent: the
retry sends them all again (a rare second copy is the lesser harm, README "Reliability").
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, nullcontext
from functools import partial
from pathlib import Path

from returns.result import Failure, Success

from core.jobs.outcome import Deferred, JobOutcome
from core.media.blob_service import BlobService
from core.media.thumbnails import Thumbnails
from core.telegram_errors import is_wrong_file_id
from core.work.delivery.album_plan import albums_of
from core.work.delivery.destination import Album, Destination
from core.work.delivery.failures import vanished
from core.work.delivery.report import Report
from core.work.delivery.sending import not_sent, send_reported, video_meta
from ports.blobs import BlobRecord
from ports.clock import Clock
from ports.errors import StoreError
from ports.media import VideoInfo
from ports.messenger import (
    AlbumItem,
    MessengerError,
    SentVideo,
    StoredVideo,
    VideoFile,
)

log = logging.getLogger("vidrelay.jobs")


class Albums:
    def __init__(self, *, blobs: BlobService, thumbnails: Thumbnails | None, clock: Clock) -> None:
        """`thumbnails` None: Telegram makes its own previews where it can."""
        self._blobs = blobs
        self._thumbnails = thumbnails
        self._clock = clock

    async def send(
        self, info: VideoInfo, parts: Sequence[BlobRecord], to: Destination, report: Report
    ) -> JobOutcome | None:
        """The parts in the chat: the job's outcome. None when Telegram no longer knows a part's
        file_id: those are forgotten, and the caller fetches the video again."""
        if (later := to.not_before(Album(len(parts)))) is not None:
            return Success(Deferred(later))  # the bytes stay on disk for the next turn
        first: SentVideo | None = None
        async with AsyncExitStack() as held:
            now = await self._hold(parts, held)
            items = await self._items(info, now, held, to) if now is not None else None
            if now is None or items is None:
                return Failure(vanished())
            parts = now
            if uploads := sum(p.size or 0 for p in parts if p.file_id is None):
                await report.uploading(uploads)
            albums = albums_of(len(parts))
            for album in albums:
                sent = await send_reported(report, partial(to.send_album, [items[i] for i in album]))
                if isinstance(sent, Failure):
                    return await self._not_sent(sent.failure(), [parts[i] for i in album])
                if album is albums[-1]:  # before anything else: the narrowest window for a second copy
                    await report.sent(sum(p.size or 0 for p in parts))
                await self._record([parts[i] for i in album], sent.unwrap())
                first = first or sent.unwrap()[0]
        for part in parts:
            await self._release(part.key)
        assert first is not None
        return await to.delivered(first.file_id, parts[0])

    async def _hold(self, parts: Sequence[BlobRecord], held: AsyncExitStack) -> list[BlobRecord] | None:
        """The parts as they are once held on disk until the albums are sent: another job that
        shared them may have sent and released them a moment ago (then they go by its file_ids);
        None when one of them is gone."""
        for part in parts:
            await held.enter_async_context(self._blobs.holding(part.key))
        now = [await self._blobs.find(part.key) for part in parts]
        return [part for part in now if part is not None] if all(now) else None

    async def _items(
        self, info: VideoInfo, parts: Sequence[BlobRecord], held: AsyncExitStack, to: Destination
    ) -> list[AlbumItem] | None:
        """Each part as it goes: by file_id, or its bytes with a thumbnail; None when the bytes of
        one are gone."""
        items: list[AlbumItem] = []
        for index, part in enumerate(parts, 1):
            caption = to.part_caption(index, len(parts))
            if part.file_id is not None:
                items.append((StoredVideo(part.file_id), video_meta(part, info, caption)))
                continue
            path = self._blobs.path_of(part)
            if path is None:
                return None
            thumbnail = await held.enter_async_context(self._thumbnail(path, part.duration))
            items.append((VideoFile(path), video_meta(part, info, caption, thumbnail)))
        return items

    def _thumbnail(self, path: Path, duration: float | None) -> AbstractAsyncContextManager[Path | None]:
        return nullcontext(None) if self._thumbnails is None else self._thumbnails.of(path, duration)

    async def _not_sent(self, error: MessengerError, parts: Sequence[BlobRecord]) -> JobOutcome | None:
        stored = [p for p in parts if p.file_id is not None]
        if not (stored and is_wrong_file_id(error)):
            return not_sent(error, self._clock)
        for part in stored:
            await self._blobs.clear_file_id(part.key)
        return None

    async def _record(self, parts: Sequence[BlobRecord], sent: Sequence[SentVideo]) -> None:
        try:
            for part, went in zip(parts, sent, strict=True):
                if part.file_id is None:
                    await self._blobs.record_sent(part.key, went.file_id, went.file_unique_id)
        except StoreError as error:
            # The album is out: failing the job now would send it again (see sending.after_send).
            log.warning("an album was sent but the store could not record its parts", exc_info=error)

    async def _release(self, key: str) -> None:
        try:
            await self._blobs.release(key)
        except StoreError as error:
            log.warning("a sent part's bytes could not be released (the sweep will)", exc_info=error)
