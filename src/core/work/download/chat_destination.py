"""Where `download_video` sends its video or its sound: a reply to the user's message, in their chat."""

from __future__ import annotations

from collections.abc import Sequence

from returns.result import Success

from core import texts
from core.jobs.fence import Fence
from core.jobs.outcome import JobOutcome
from core.requests.download import DownloadRequest
from core.texts.reasons import too_large, too_many_parts
from core.trust.migrations import may_migrate
from core.work.delivery.destination import Album, AudioDestination, DocumentDestination, Outgoing
from core.work.delivery.turns import VideoTurns
from core.work.download.parking import Parking, needs_confirmation
from core.work.download.replies import Replies
from core.work.fenced import FencedMessengers
from ports.blobs import BlobRecord
from ports.clock import Clock
from ports.messenger import (
    AlbumItem,
    AudioFile,
    AudioMeta,
    DocumentFile,
    DocumentMeta,
    Messenger,
    MessengerError,
    SentAudio,
    SentDocument,
    SentVideo,
    StoredAudio,
    StoredDocument,
    StoredVideo,
    VideoFile,
    VideoMeta,
)
from ports.telemetry import DeliveryEvents


class ChatDestinations:
    """What every download job's destination shares; one `ChatDestination` per request."""

    def __init__(
        self,
        *,
        messengers: FencedMessengers,
        parking: Parking,
        replies: Replies,
        turns: VideoTurns,
        confirm_longer_than_seconds: float,
        deliveries: DeliveryEvents,
        clock: Clock,
    ) -> None:
        """`messengers`: each attempt speaks through its own fenced Messenger;
        `confirm_longer_than_seconds`: the operator's default, for a group that chose none;
        `deliveries`: told how long each user waited for the video."""
        self._messengers = messengers
        self._parking = parking
        self._replies = replies
        self._turns = turns
        self._confirm_longer_than = confirm_longer_than_seconds
        self._deliveries = deliveries
        self._clock = clock

    def for_request(self, request: DownloadRequest, fence: Fence) -> ChatDestination:
        """Where the attempt that `fence` guards sends: every call it makes there asks the fence."""
        messenger = self._messengers.for_attempt(fence)
        return ChatDestination(
            request,
            messenger=messenger,
            parking=self._parking,
            replies=self._replies.through(messenger),
            turns=self._turns,
            confirm_longer_than_seconds=self._confirm_longer_than,
            deliveries=self._deliveries,
            clock=self._clock,
        )


class ChatDestination(DocumentDestination, AudioDestination):
    def __init__(
        self,
        request: DownloadRequest,
        *,
        messenger: Messenger,
        parking: Parking,
        replies: Replies,
        turns: VideoTurns,
        confirm_longer_than_seconds: float,
        deliveries: DeliveryEvents,
        clock: Clock,
    ) -> None:
        self._request = request
        self._messenger = messenger
        self._parking = parking
        self.replies = replies
        """Short answers in the request's chat, through the attempt's fenced Messenger."""
        self._turns = turns
        self._confirm_longer_than = confirm_longer_than_seconds
        self._deliveries = deliveries
        self._clock = clock

    async def hold(self, duration: float | None, pinned_key: str | None) -> JobOutcome | None:
        request = self._request
        if not request.ask_long:
            return None  # the group chose to have long videos sent without asking
        longer_than = request.ask_longer_than or self._confirm_longer_than
        if not needs_confirmation(request, duration, longer_than):
            return None
        words = self.replies.words(request)
        return await self._parking.ask_first(request, duration or 0.0, pinned_key, self._messenger, words)

    async def too_large(self, size: int, *, max_parts: int | None = None) -> JobOutcome:
        await self.replies.reopen(self._request)
        refusal = too_large(size) if max_parts is None else too_many_parts(size, max_parts)
        await self.replies.say(self._request, self.replies.words(self._request).reason(refusal))
        return Success(None)

    def not_before(self, outgoing: Outgoing) -> float | None:
        count = outgoing.parts if isinstance(outgoing, Album) else 1
        return self._turns.not_before(self._request.chat_id, count)

    async def send(self, video: VideoFile | StoredVideo, meta: VideoMeta) -> SentVideo:
        request = self._request
        try:
            return await self._messenger.send_video(request.chat_id, video, meta, reply_to=request.message_id)
        except MessengerError as error:
            self._follow_migration(error)
            return await self.send(video, meta)

    @property
    def takes_albums(self) -> bool:
        return True

    def part_caption(self, index: int, count: int) -> str:
        return self.replies.words(self._request).say(texts.PART_CAPTION, index=index, count=count)

    async def send_album(self, videos: Sequence[AlbumItem]) -> list[SentVideo]:
        request = self._request
        try:
            return await self._messenger.send_album(request.chat_id, videos, reply_to=request.message_id)
        except MessengerError as error:
            self._follow_migration(error)
            return await self.send_album(videos)

    async def send_document(
        self, document: DocumentFile | StoredDocument, meta: DocumentMeta
    ) -> SentDocument:
        request = self._request
        try:
            return await self._messenger.send_document(
                request.chat_id, document, meta, reply_to=request.message_id
            )
        except MessengerError as error:
            self._follow_migration(error)
            return await self.send_document(document, meta)

    async def send_audio(self, audio: AudioFile | StoredAudio, meta: AudioMeta) -> SentAudio:
        request = self._request
        try:
            return await self._messenger.send_audio(request.chat_id, audio, meta, reply_to=request.message_id)
        except MessengerError as error:
            self._follow_migration(error)
            return await self.send_audio(audio, meta)

    def _follow_migration(self, error: MessengerError) -> None:
        """Re-raises `error` unless the group became a supergroup while the job waited (and its
        recorded chat could migrate there, see core.trust.migrations): then the same people are at
        a new chat id, and the call is made again there."""
        request = self._request
        moved_to = error.migrate_to_chat_id
        if moved_to is None or not may_migrate(request.chat_type, request.chat_id, moved_to):
            raise error
        request.chat_id, request.chat_type = moved_to, "supergroup"

    async def delivered(self, file_id: str, record: BlobRecord) -> JobOutcome:
        if self._request.posted_at is not None:
            self._deliveries.video_delivered(self._clock.now() - self._request.posted_at)
        return Success(None)
