"""The path a link takes when its chat chose "send as file": the video's bytes as yt-dlp downloaded
them, sent as a document, which Telegram keeps as they are (no player, nothing re-encoded), for
users who want the original.

The same guard and scrape as a video (`video.Delivery.videos`), then: sent by file_id when
Telegram has the file → one shared download of the bytes as they are, kept as a blob of their own
(`<video key>#file`, core.blob_names.file_key), so a video's file_id is never sent as a document
nor a document's as a video → size check → upload with a thumbnail, named after the title → the
file_id recorded and the bytes released. A file over the upload limit cannot go as it is: then the
answer is `AS_VIDEO`, and the job sends the video instead, made to fit as any video is.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager, nullcontext
from pathlib import Path

from returns.result import Failure, Result, Success

from core.blob_names import blob_key, file_key
from core.jobs.outcome import Deferred, JobOutcome
from core.media.blob_service import BlobService, Fetcher
from core.media.thumbnails import Thumbnails
from core.telegram_errors import is_wrong_file_id
from core.work.delivery.destination import DocumentDestination
from core.work.delivery.document_names import document_name
from core.work.delivery.failures import vanished
from core.work.delivery.report import Report
from core.work.delivery.sending import after_send, fetch_bytes, send_reported
from ports.blobs import BlobRecord
from ports.clock import Clock
from ports.media import VideoInfo
from ports.messenger import DocumentFile, DocumentMeta, MessengerError, SentDocument, StoredDocument

AS_VIDEO = None
"""The file does not fit the upload limit as it is: the video goes instead."""

SentFile = Result[SentDocument | None, MessengerError]


class FileDelivery:
    def __init__(
        self,
        *,
        blobs: BlobService,
        fetcher: Fetcher,
        thumbnails: Thumbnails | None,
        clock: Clock,
        upload_limit_bytes: int,
        ytdlp_timeout_seconds: float,
    ) -> None:
        """`fetcher`: yt-dlp as it is (the bytes are not converted or compressed); `thumbnails`
        None: the document goes without a preview."""
        self._blobs = blobs
        self._fetcher = fetcher
        self._thumbnails = thumbnails
        self._clock = clock
        self._limit = upload_limit_bytes
        self._timeout = ytdlp_timeout_seconds

    async def deliver(self, info: VideoInfo, to: DocumentDestination, report: Report) -> JobOutcome | None:
        """The file in the chat: the job's outcome; AS_VIDEO when it is too large to go as it is."""
        key = file_key(blob_key(info))
        record = await self._blobs.find(key)
        pinned = key if record is not None and record.file_name is not None else None
        if (held := await to.hold(info.duration, pinned)) is not None:
            return held
        report.found(info)
        if record is not None and record.file_id is not None:
            stored = StoredDocument(record.file_id)
            if (later := to.not_before(stored)) is not None:
                return Success(Deferred(later))
            sent = await self._send(to, stored, DocumentMeta(), report)
            if not (isinstance(sent, Failure) and is_wrong_file_id(sent.failure())):
                return await after_send(self._blobs, self._clock, to, record, sent, record.file_id, report)
            await self._blobs.clear_file_id(key)
        if info.filesize is not None and info.filesize > self._limit:
            return AS_VIDEO  # announced too large to go as it is: not fetched as a file at all
        await report.downloading()
        async with self._blobs.holding(key):
            fetched = await fetch_bytes(self._blobs, info, self._fetcher, self._timeout, report, to, key)
            if not isinstance(fetched, BlobRecord):
                return fetched
            if (fetched.size or 0) <= self._limit:
                return await self._upload(info, fetched, to, report)
        await self._blobs.drop_if(key, lambda _record, pinned: not pinned)
        return AS_VIDEO

    async def _upload(
        self, info: VideoInfo, record: BlobRecord, to: DocumentDestination, report: Report
    ) -> JobOutcome:
        path = self._blobs.path_of(record)
        if path is None:
            return Failure(vanished())
        upload = DocumentFile(path)
        if (later := to.not_before(upload)) is not None:
            return Success(Deferred(later))  # the bytes stay on disk for the next turn
        await report.uploading(record.size or 0)
        async with self._thumbnail(path, record.duration) as thumbnail:
            meta = DocumentMeta(thumbnail=thumbnail, file_name=document_name(info, path.suffix))
            sent = await self._send(to, upload, meta, report)
        return await after_send(self._blobs, self._clock, to, record, sent, None, report)

    def _thumbnail(self, path: Path, duration: float | None) -> AbstractAsyncContextManager[Path | None]:
        return nullcontext(None) if self._thumbnails is None else self._thumbnails.of(path, duration)

    async def _send(
        self,
        to: DocumentDestination,
        document: DocumentFile | StoredDocument,
        meta: DocumentMeta,
        report: Report,
    ) -> SentFile:
        return await send_reported(report, lambda: to.send_document(document, meta))
