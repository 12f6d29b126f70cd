"""A video offered in several heights (a "quality ladder"), with a poster, as many sites serve it:
one HTML5 <video> with a <source> per height, each a clip ffmpeg made (short, small, cached).

yt-dlp's generic extractor reads each <source>'s width and height, names the format after its
label ("480p"), and takes the poster as the video's thumbnail.
"""

from __future__ import annotations

from pathlib import Path

from testkit.clips import ClipSpec, ensure_clips, ensure_made
from testkit.video_site.behaviours import Behaviour, Body
from testkit.video_site.pages import html_page

LADDER_HEIGHTS = (240, 360, 480, 720)
LADDER_SECONDS = 2.0
POSTER_SIZE = (480, 270)


def rung(height: int) -> ClipSpec:
    """A 16:9 clip `height` lines tall (widths rounded to even, as H.264 needs)."""
    width = (height * 16 // 9 + 1) // 2 * 2
    return ClipSpec(f"ladder-{height}", LADDER_SECONDS, width, height, fps=10)


async def ensure_poster(folder: Path) -> Path:
    width, height = POSTER_SIZE

    def args(out: Path) -> list[str]:
        source = f"testsrc=size={width}x{height}:rate=1"
        return ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", source, "-frames:v", "1", str(out)]

    return await ensure_made(folder, f"poster-{width}x{height}.jpg", args, "the ladder's poster")


async def ladder_routes(folder: Path, prefix: str, title: str) -> dict[str, Behaviour]:
    """`<prefix>/index.html` (the page), `<prefix>/<height>.mp4` (each rung), `<prefix>/poster.jpg`."""
    specs = [rung(h) for h in LADDER_HEIGHTS]
    clips = await ensure_clips(folder, specs)
    poster = await ensure_poster(folder)
    routes: dict[str, Behaviour] = {
        f"{prefix}/{spec.height}.mp4": Body(clips[spec.name].read_bytes(), "video/mp4") for spec in specs
    }
    routes[f"{prefix}/poster.jpg"] = Body(poster.read_bytes(), "image/jpeg")
    sources = "".join(
        f'<source src="{prefix}/{s.height}.mp4" type="video/mp4" label="{s.height}p"'
        f' width="{s.width}" height="{s.height}">'
        for s in reversed(specs)
    )
    video = f'<video controls poster="{prefix}/poster.jpg">{sources}</video>'
    routes[f"{prefix}/index.html"] = html_page(title, f"<h1>{title}</h1>{video}")
    return routes
