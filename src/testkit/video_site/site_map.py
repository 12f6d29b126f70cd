"""The default site, what `VideoServer.reset()` puts back:

/clips/<name>.mp4        each clip of `clips.DEFAULT_CLIPS` (short, medium, long)
/pages/video.html        an HTML page with a <video> tag (the generic extractor finds it)
/pages/long.html         the same, embedding the 25-minute clip (duration known only after download)
/pages/long-with-duration.html  the 25-minute clip behind schema.org JSON-LD: the scrape says 1500 s
/pages/no-video.html     an HTML page without any video
/status/<code>           an HTML error page with that status, e.g. /status/404, 403, 410, 503
/verdicts/cloudflare     Cloudflare's bot check (a 403 challenge): the site refuses the client
/faults/stall.mp4        video headers sent, then no byte of the body
/faults/slow.mp4         the medium clip trickled over about 2 s
/faults/stall.html       HTML headers sent, then nothing (a page that never loads)
/faults/cut.mp4          the medium clip's headers and first 10 KB, then the connection drops
anything else            a 404 page
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from testkit.clips import LONG
from testkit.video_site.behaviours import Behaviour, Body, Cut, Stall, Trickle
from testkit.video_site.pages import (
    cloudflare_challenge,
    html_page,
    json_ld_video_page,
    status_page,
    video_page,
)


def default_routes(clips: dict[str, Path], url: Callable[[str], str]) -> dict[str, Behaviour]:
    """`url` makes a path absolute: some pages must name their video by its full address."""
    routes: dict[str, Behaviour] = {
        f"/clips/{name}.mp4": Body(path.read_bytes(), "video/mp4") for name, path in clips.items()
    }
    routes |= {f"/status/{code}": status_page(code) for code in (400, 403, 404, 410, 429, 500, 503)}
    routes["/verdicts/cloudflare"] = cloudflare_challenge()
    routes["/pages/video.html"] = video_page("/clips/short.mp4")
    routes["/pages/long.html"] = video_page("/clips/long.mp4", "A long test video")
    routes["/pages/long-with-duration.html"] = json_ld_video_page(
        url("/clips/long.mp4"), "A long test video", int(LONG.seconds)
    )
    routes["/pages/no-video.html"] = html_page("Just text", "<p>No video here, only words.</p>")
    routes["/faults/stall.mp4"] = Stall()
    routes["/faults/stall.html"] = Stall(content_type="text/html")
    routes["/faults/cut.mp4"] = Cut(clips["medium"].read_bytes(), after_bytes=10_000)
    routes["/faults/slow.mp4"] = Trickle(clips["medium"].read_bytes(), seconds=2.0)
    return routes
