"""Where a delivered file goes, as the job that delivers it says: the ports of the delivery path.

The path (video.py, audio.py) is the same for every job; what differs is behind these: a reply
in the user's chat (`download_video`), a placeholder swapped in place (`download_inline`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from core.jobs.outcome import JobOutcome
from ports.blobs import BlobRecord
from ports.messenger import (
    AlbumItem,
    AudioFile,
    AudioMeta,
    DocumentFile,
    DocumentMeta,
    SentAudio,
    SentDocument,
    SentVideo,
    StoredAudio,
    StoredDocument,
    StoredVideo,
    VideoFile,
    VideoMeta,
)


@dataclass(frozen=True, slots=True)
class Album:
    """An album about to go: as many messages as it has parts (Telegram counts each)."""

    parts: int


Outgoing = VideoFile | StoredVideo | AudioFile | StoredAudio | DocumentFile | StoredDocument | Album


class Paced(Protocol):
    def not_before(self, outgoing: Outgoing) -> float | None:
        """When to come back if sending `outgoing` would wait for its chat's turn longer than a
        worker should (Telegram's pacing, see `turns`); None: it may go now."""
        ...


class TooLarge(Protocol):
    async def too_large(self, size: int, *, max_parts: int | None = None) -> JobOutcome:
        """The file cannot go (`size` bytes); `max_parts`: because it would take more parts than
        that (none: it is too large as it is)."""
        ...


class Delivered(Protocol):
    async def delivered(self, file_id: str, record: BlobRecord) -> JobOutcome:
        """Telegram has the file as `file_id`, recorded already: the job's last step."""
        ...


class Destination(Paced, TooLarge, Delivered, Protocol):
    """Where the video goes."""

    async def hold(self, duration: float | None, pinned_key: str | None) -> JobOutcome | None:
        """An outcome when the video must not go yet (a group is asked about a long video first);
        `pinned_key`: bytes already on disk that the wait must keep."""
        ...

    async def send(self, video: VideoFile | StoredVideo, meta: VideoMeta) -> SentVideo | None:
        """Raises MessengerError. None: nothing needed sending, the stored file_id is all it takes."""
        ...

    @property
    def takes_albums(self) -> bool:
        """A video past the limit may come as an album of parts here (not in one inline message)."""
        ...

    async def send_album(self, videos: Sequence[AlbumItem]) -> list[SentVideo]:
        """One album of at most MAX_ALBUM_ITEMS parts, only where `takes_albums`. Raises
        MessengerError."""
        ...

    def part_caption(self, index: int, count: int) -> str:
        """ "Part 1/3", in the language of the chat the album goes to (where `takes_albums`)."""
        ...


class DocumentDestination(Destination, Protocol):
    """Where the video goes as a file ("send as file"), or as a video when it cannot go as one."""

    async def send_document(
        self, document: DocumentFile | StoredDocument, meta: DocumentMeta
    ) -> SentDocument:
        """Raises MessengerError."""
        ...


class AudioDestination(Paced, TooLarge, Delivered, Protocol):
    """Where the sound goes."""

    async def send_audio(self, audio: AudioFile | StoredAudio, meta: AudioMeta) -> SentAudio | None:
        """Raises MessengerError. None: nothing needed sending, the stored file_id is all it takes."""
        ...
