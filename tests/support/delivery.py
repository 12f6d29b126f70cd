"""A job's side of the shared delivery path (its Destination and its Report) that writes down every
call in order, for the tests of the path itself."""

from __future__ import annotations

from returns.result import Success

from core.jobs.outcome import JobOutcome
from core.work.delivery.destination import Destination
from core.work.delivery.report import Report
from ports.blobs import BlobRecord
from ports.media import Progress, VideoInfo
from ports.messenger import MessengerError, SentVideo, StoredVideo, VideoFile, VideoMeta
from tests.support.messenger import WRONG_FILE_ID


class Recording(Destination, Report):
    """A job's side of a delivery that writes down every call, in order."""

    def __init__(self, *, hold_longer_than: float | None = None, stored: str | None = None) -> None:
        self.calls: list[str] = []
        self._hold_longer_than = hold_longer_than
        self._stored = stored
        self.wrong_file_id = False
        self.busy_until: float | None = None
        """The chat's turn comes only then (Telegram's pacing)."""

    @property
    def verbose(self) -> bool:
        return False

    async def scraping(self) -> None:
        self.calls.append("scraping")

    def found(self, info: VideoInfo) -> None:
        self.calls.append(f"found {info.id}")

    async def downloading(self) -> None:
        self.calls.append("downloading")

    def progress(self, progress: Progress) -> None:
        self.calls.append(f"progress {progress.percent:g}")

    def output(self, line: str) -> None:
        self.calls.append(f"output {line}")

    async def uploading(self, size: int) -> None:
        self.calls.append(f"uploading {size}")

    async def sending(self) -> None:
        self.calls.append("sending")

    def unsent(self) -> None:
        self.calls.append("unsent")

    async def sent(self, size: int | None) -> None:
        self.calls.append(f"sent {size}")

    async def ending(self) -> None:
        self.calls.append("ending")

    def not_before(self, video: VideoFile | StoredVideo) -> float | None:
        return self.busy_until

    async def hold(self, duration: float | None, pinned_key: str | None) -> JobOutcome | None:
        self.calls.append(f"hold {duration} {pinned_key}")
        if self._hold_longer_than is not None and duration is not None and duration > self._hold_longer_than:
            return Success(None)
        return None

    async def too_large(self, size: int, *, max_parts: int | None = None) -> JobOutcome:
        self.calls.append(f"too large {size}" + (f" in more than {max_parts} parts" if max_parts else ""))
        return Success(None)

    def part_caption(self, index: int, count: int) -> str:
        return f"Part {index}/{count}"

    async def send(self, video: VideoFile | StoredVideo, meta: VideoMeta) -> SentVideo | None:
        if isinstance(video, StoredVideo):
            self.calls.append(f"send stored {video.file_id}")
            if self.wrong_file_id:
                raise MessengerError(WRONG_FILE_ID, 400)
            return None
        self.calls.append(f"send file {video.path.name}")
        return SentVideo(1, "F-new", "U-new")

    async def delivered(self, file_id: str, record: BlobRecord) -> JobOutcome:
        self.calls.append(f"delivered {file_id}")
        return Success(None)
