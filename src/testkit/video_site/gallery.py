"""A page that embeds several different videos, as a news article or a blog post does: one HTML5
<video> per clip, each clip made by ffmpeg (cached, like the others), served as an MP4 or as an
HLS stream.

yt-dlp's generic extractor reads such a page as a playlist of "html5" entries that share the
page's URL and, one format each, the same format id: only their place on the page tells them apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from testkit.clips import ClipSpec, ensure_clips
from testkit.video_site.behaviours import Behaviour, Body
from testkit.video_site.hls import PLAYLIST_TYPE, SEGMENT_TYPE, ensure_segments
from testkit.video_site.pages import html_page

HLS_SOURCE_TYPE = "application/x-mpegURL"


@dataclass(frozen=True, slots=True)
class Embedded:
    """One video of the page: a clip, served as one MP4 file or (`hls`) as an HLS stream."""

    clip: ClipSpec
    hls: bool = False


def distinct_clips(prefix: str, count: int) -> list[ClipSpec]:
    """`count` clips that differ in every way a test can check: length, picture size and tone."""
    return [
        ClipSpec(f"{prefix}-{n}", seconds=1.0 + n, width=128 + 32 * n, height=96 + 24 * n, fps=10)
        for n in range(count)
    ]


async def gallery_routes(
    folder: Path, prefix: str, videos: Sequence[Embedded], title: str
) -> dict[str, Behaviour]:
    """`<prefix>/index.html` (the page) and each video: `<prefix>/<clip>.mp4`, or
    `<prefix>/<clip>/index.m3u8` with its segments `<prefix>/<clip>/seg<N>.ts`."""
    clips = await ensure_clips(folder, [v.clip for v in videos])
    routes: dict[str, Behaviour] = {}
    tags = []
    for video in videos:
        clip = clips[video.clip.name]
        if video.hls:
            base = f"{prefix}/{video.clip.name}"
            segments = await ensure_segments(folder, clip)
            paths = [f"{base}/seg{i}.ts" for i in range(len(segments.files))]
            # Relative segment names, as a packager writes them: the playlist moves with its folder.
            playlist = segments.playlist([p.rsplit("/", 1)[1] for p in paths])
            routes[f"{base}/index.m3u8"] = Body(playlist.encode(), PLAYLIST_TYPE)
            routes |= {
                p: Body(f.read_bytes(), SEGMENT_TYPE) for p, f in zip(paths, segments.files, strict=True)
            }
            source = f'<source src="{base}/index.m3u8" type="{HLS_SOURCE_TYPE}">'
        else:
            path = f"{prefix}/{video.clip.name}.mp4"
            routes[path] = Body(clip.read_bytes(), "video/mp4")
            source = f'<source src="{path}" type="video/mp4">'
        tags.append(f"<figure><video controls>{source}</video></figure>")
    body = f"<article><h1>{title}</h1><p>What we saw today.</p>{''.join(tags)}</article>"
    routes[f"{prefix}/index.html"] = html_page(title, body)
    return routes
