"""Video values and the tools that fetch and inspect them (yt-dlp, ffprobe)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Protocol

from returns.result import Result


@dataclass(frozen=True, slots=True)
class VideoInfo:
    """One video entry of a scrape, as yt-dlp described it."""

    url: str
    """The URL that was scraped."""
    webpage_url: str
    extractor: str
    id: str
    title: str
    format_id: str
    ext: str
    info_json: str
    """yt-dlp's own JSON for this entry; the download is made from it (--load-info-json)."""
    duration: float | None = None
    filesize: int | None = None
    """Exact or approximate bytes of the chosen format, when known before download."""
    width: int | None = None
    height: int | None = None
    vcodec: str | None = None
    acodec: str | None = None
    tbr: float | None = None
    playlist_title: str | None = None
    description: str | None = None
    performer: str | None = None
    """Who made it, for a music player: the artist, else the uploader or channel."""
    has_video: bool = True
    """False for a photo item of a carousel or an audio-only entry."""
    entry: int | None = None
    """Where this video stands among the entries of a multi-video post or playlist (1-based, as
    the site lists them); None when the URL is the video itself. Entries of one page may share
    everything else (the page's URL, the format id), so this is what keeps them apart."""


class Stage(Enum):
    DOWNLOAD = "download"
    CONVERT = "convert"
    """Re-encoding into what every client plays."""
    COMPRESS = "compress"
    """Re-encoding to fit the upload limit."""


@dataclass(frozen=True, slots=True)
class Progress:
    percent: float | None
    speed_bytes: float | None
    eta_seconds: float | None
    downloaded_bytes: int | None = None
    total_bytes: int | None = None
    stage: Stage = Stage.DOWNLOAD


@dataclass(frozen=True, slots=True)
class ToolFailure:
    """How a child process ended badly; the core classifies it."""

    stderr_tail: str
    exit_code: int | None
    signal: int | None = None
    timed_out_after: float | None = None
    aborted: bool = False
    """Stopped because the process is shutting down: not the job's fault."""
    too_large_bytes: int | None = None
    """The video cannot be delivered at its size (over the download cap, or over the upload limit
    even compressed): at least this many bytes. Not a failure to retry: the answer is "too large"."""


@dataclass(frozen=True, slots=True)
class MediaProbe:
    """What ffprobe found in a file: the first video and the first audio stream."""

    duration: float | None
    width: int | None
    height: int | None
    video_codec: str | None = None
    """ffprobe's codec name ("h264", "hevc", "vp9", "av1"); None: no video stream."""
    pix_fmt: str | None = None
    bit_depth: int | None = None
    audio_codec: str | None = None
    """"aac", "mp3", "opus"…; None: no audio stream."""
    container: str | None = None
    """ffprobe's format name, e.g. "mov,mp4,m4a,3gp,3g2,mj2" or "matroska,webm"."""
    size: int | None = None
    """The file's bytes."""


OutputSink = Callable[[str], None]
ProgressSink = Callable[[Progress], None]


class Downloader(Protocol):
    """A run that fails, for whatever reason, is a `Failure(ToolFailure)`: nothing is raised."""

    async def scrape(
        self,
        url: str,
        *,
        timeout: float,
        verbose: bool = False,
        on_output: OutputSink | None = None,
    ) -> Result[list[VideoInfo], ToolFailure]:
        """Every entry behind `url` (a post or playlist yields several)."""
        ...

    async def download(
        self,
        info: VideoInfo,
        staging: Path,
        *,
        timeout: float,
        verbose: bool = False,
        on_progress: ProgressSink | None = None,
        on_output: OutputSink | None = None,
    ) -> Result[Path, ToolFailure]:
        """Download `info` into the empty folder `staging`; the single produced file."""
        ...

    async def version(self) -> str | None: ...


class MediaProber(Protocol):
    async def probe(self, path: Path) -> MediaProbe | None:
        """None when the file cannot be read as media or the tool fails: the caller goes on without."""
        ...


@dataclass(frozen=True, slots=True)
class UpdateOutcome:
    changed: bool
    version_before: str | None
    version_after: str | None
    error: str | None = None


class Updater(Protocol):
    async def update(self, avoid: Collection[str] = ()) -> UpdateOutcome:
        """Install the newest release beside the running one and switch atomically; a failure is
        the outcome's `error`, the current version stays. A newest release that is one of `avoid`
        (rolled back) is not installed: the current version stays until a newer release."""
        ...

    async def current_version(self) -> str | None: ...

    async def previous_version(self, avoid: Collection[str] = ()) -> str | None:
        """What `roll_back` would go back to: the newest version kept (the packaged one included)
        older than the one in use and not one of `avoid`; None when there is none."""
        ...

    async def roll_back(self, avoid: Collection[str]) -> UpdateOutcome:
        """When the version in use is one of `avoid`: switch to `previous_version(avoid)` at once.
        `changed` False when it is not, or when nothing older is kept (then `error` says so)."""
        ...
