"""HLS for the local video site: a clip cut into MPEG-TS segments by ffmpeg (cached, like the
clips), and media playlists that name those segments on whichever server the test chooses."""

from __future__ import annotations

import asyncio
import hashlib
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from testkit.ffmpeg import run_ffmpeg

PLAYLIST_TYPE = "application/vnd.apple.mpegurl"
SEGMENT_TYPE = "video/mp2t"


@dataclass(frozen=True, slots=True)
class Segments:
    """A clip as HLS segments, in order, each with its duration in seconds."""

    files: tuple[Path, ...]
    durations: tuple[float, ...]

    def playlist(self, segment_urls: list[str]) -> str:
        """A complete (VOD) media playlist naming the segments at `segment_urls`."""
        target = max(1, round(max(self.durations)))
        lines = ["#EXTM3U", "#EXT-X-VERSION:3", f"#EXT-X-TARGETDURATION:{target}", "#EXT-X-MEDIA-SEQUENCE:0"]
        lines.append("#EXT-X-PLAYLIST-TYPE:VOD")
        for url, seconds in zip(segment_urls, self.durations, strict=True):
            lines += [f"#EXTINF:{seconds:.3f},", url]
        return "\n".join([*lines, "#EXT-X-ENDLIST", ""])


async def ensure_segments(folder: Path, clip: Path, seconds: float = 1.0) -> Segments:
    """`clip` cut into segments of about `seconds` (a keyframe at each cut), made once per clip."""
    digest = hashlib.sha256(f"{clip.name}:{seconds!r}".encode()).hexdigest()[:12]  # clip names are hashes
    target = folder / f"hls-{clip.stem}-{digest}"
    if not (target / "index.m3u8").is_file():
        await _segment(clip, seconds, target)
    return _read(target)


async def _segment(clip: Path, seconds: float, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    # Made in a fresh folder and renamed into place, so a reader never sees half a stream.
    work = Path(tempfile.mkdtemp(dir=target.parent, prefix=".hls-"))
    args = [
        *("-nostdin", "-v", "error", "-y", "-i", str(clip)),
        *("-c:v", "libx264", "-preset", "ultrafast", "-force_key_frames", f"expr:gte(t,n_forced*{seconds})"),
        *("-c:a", "aac", "-f", "hls", "-hls_time", f"{seconds:g}", "-hls_playlist_type", "vod"),
        *("-hls_segment_filename", str(work / "seg%d.ts"), str(work / "index.m3u8")),
    ]
    try:
        await run_ffmpeg(args, f"segment {clip.name}")
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    try:
        await asyncio.to_thread(work.rename, target)
    except OSError:  # another process made it first
        shutil.rmtree(work, ignore_errors=True)


def _read(folder: Path) -> Segments:
    files: list[Path] = []
    durations: list[float] = []
    for line in (folder / "index.m3u8").read_text().splitlines():
        if line.startswith("#EXTINF:"):
            durations.append(float(line.removeprefix("#EXTINF:").split(",", 1)[0]))
        elif line and not line.startswith("#"):
            files.append(folder / line)
    return Segments(tuple(files), tuple(durations))
