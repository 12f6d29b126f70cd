"""A video past the upload limit as its parts: each part a blob of its own (core.blob_names.part_key)
with its own file_id, so that a repeat of the link sends the parts by id, without a download.

`find` gives the complete set of a video's parts, each with its file_id or its bytes; `cut` makes
them once from the whole video's bytes, however many jobs ask at once: a stream copy at keyframes
(the Transcoder's `split`), made again with one part more while a part comes out over the limit
(core.media.parts). The parts' bytes count against the blob folder's cap like any other blob's.
"""

from __future__ import annotations

from dataclasses import replace

from returns.result import Failure, Result, Success

from core.blob_names import part_key
from core.media.blob_service import BlobService
from core.media.parts import cuts_to_try, part_seconds
from core.media.playable import too_large
from core.media.single_flight import SingleFlight
from ports.blobs import BlobRecord
from ports.media import ToolFailure, VideoInfo
from ports.transcoder import Transcoder

CutResult = Result[list[BlobRecord], ToolFailure]


class BlobParts:
    def __init__(
        self,
        blobs: BlobService,
        transcoder: Transcoder,
        *,
        upload_limit_bytes: int,
        max_parts: int,
        cut_timeout: float,
    ) -> None:
        self._blobs = blobs
        self._transcoder = transcoder
        self._limit = upload_limit_bytes
        self._max_parts = max_parts
        self._timeout = cut_timeout
        self._cuts: SingleFlight[CutResult, None] = SingleFlight("vidrelay-blob-cut")

    async def find(self, key: str) -> list[BlobRecord] | None:
        """The parts the video `key` was cut into, in order; None without a complete set of them."""
        for count in range(2, self._max_parts + 1):
            first = await self._blobs.find(part_key(key, 1, count))
            if first is None:
                continue
            rest = [await self._blobs.find(part_key(key, i, count)) for i in range(2, count + 1)]
            found = [first, *(r for r in rest if r is not None)]
            if len(found) == count:
                return found
        return None

    async def cut(self, whole: BlobRecord, info: VideoInfo) -> CutResult:
        """The parts of `whole`'s bytes (on disk), each under the limit; a Failure with
        `too_large_bytes` when no cut within the cap on parts leaves every part under it."""
        return await self._cuts.join(whole.key, lambda _: self._cut_once(whole, info), None)

    async def _cut_once(self, whole: BlobRecord, info: VideoInfo) -> CutResult:
        had = await self.find(whole.key)
        if had is not None and all(p.file_id is not None or p.file_name is not None for p in had):
            return Success(had)  # another job cut it a moment ago
        size = whole.size or 0
        if whole.duration is None or whole.duration <= 0:
            return Failure(too_large(size, self._limit))  # nothing to cut, or no time to cut it by
        for count in cuts_to_try(size, self._limit, self._max_parts):
            cut = await self._cut_into(whole, info, part_seconds(whole.duration, count))
            if isinstance(cut, Failure):
                return Failure(_unsendable(cut.failure(), size))
            made = cut.unwrap()
            if made and len(made) <= self._max_parts and all((p.size or 0) <= self._limit for p in made):
                return Success(made)
            for part in made:  # keyframes far apart left a part over the limit: one part more
                await self._blobs.drop_if(part.key, lambda _record, _pinned: True)
        return Failure(too_large(size, self._limit))

    async def _cut_into(self, whole: BlobRecord, info: VideoInfo, seconds: float) -> CutResult:
        source = self._blobs.path_of(whole)
        if source is None:
            return Failure(too_large(whole.size or 0, self._limit))
        async with self._blobs.staging(f"{whole.key}#parts") as folder:
            split = await self._transcoder.split(source, folder, part_seconds=seconds, timeout=self._timeout)
            if isinstance(split, Failure):
                return split
            paths = split.unwrap()
            return Success(
                [
                    await self._blobs.adopt(part_key(whole.key, index, len(paths)), info, path)
                    for index, path in enumerate(paths, 1)
                ]
            )


def _unsendable(failure: ToolFailure, size: int) -> ToolFailure:
    """A file ffmpeg cannot cut (not a video after all, a broken one) cannot be sent: it is too
    large, as it would have been before parts — unless the cut was only stopped for shutdown."""
    return failure if failure.aborted else replace(failure, too_large_bytes=size)
