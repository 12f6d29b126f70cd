"""What the chat hears while its video is on the way: the port a delivery reports through."""

from __future__ import annotations

from typing import Protocol

from ports.media import Progress, VideoInfo


class Report(Protocol):
    """What the chat hears while its video is on the way."""

    @property
    def verbose(self) -> bool:
        """yt-dlp's output goes into the report, and the caches are bypassed."""
        ...

    async def scraping(self) -> None: ...

    def found(self, info: VideoInfo) -> None: ...

    async def downloading(self) -> None: ...

    def progress(self, progress: Progress) -> None: ...

    def output(self, line: str) -> None: ...

    async def uploading(self, size: int) -> None: ...

    async def sending(self) -> None:
        """The video goes now: nothing the report said before may reach the chat after it."""
        ...

    def unsent(self) -> None:
        """The video did not go after all; the report goes on."""
        ...

    async def sent(self, size: int | None) -> None:
        """The video is in the chat: the report's last word, and the job's record that it went out
        (kept at once: from then on a crash must not send it again, README "Reliability")."""
        ...

    async def ending(self) -> None:
        """The job's last word comes next (a refusal): nothing the report said may follow it."""
        ...


class Quiet(Report):
    """Nobody is told anything on the way (inline mode)."""

    @property
    def verbose(self) -> bool:
        return False

    async def scraping(self) -> None:
        pass

    def found(self, info: VideoInfo) -> None:
        pass

    async def downloading(self) -> None:
        pass

    def progress(self, progress: Progress) -> None:
        pass

    def output(self, line: str) -> None:
        pass

    async def uploading(self, size: int) -> None:
        pass

    async def sending(self) -> None:
        pass

    def unsent(self) -> None:
        pass

    async def sent(self, size: int | None) -> None:
        pass

    async def ending(self) -> None:
        pass
