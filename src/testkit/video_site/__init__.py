"""A local video site on 127.0.0.1 for the tests and the offline demo: clips, pages and faults.

Every path's behaviour is set from code (`set_route`), every request is recorded (`hits`,
`requests`, `max_concurrent`), and `reset()` puts the default site back (see `site_map`).
`Redirect` sends a client anywhere (another port: the SSRF guard's tests); `add_hls` serves a
clip as an HLS media playlist whose segments may live on another server; `add_gallery` a page
embedding several different videos (MP4 or HLS).
"""

from testkit.video_site.behaviours import Behaviour, Body, Cut, FailThen, Redirect, Stall, Trickle
from testkit.video_site.gallery import Embedded, distinct_clips
from testkit.video_site.pages import html_page, json_ld_video_page, status_page, video_page
from testkit.video_site.server import RequestRecord, VideoServer

__all__ = [
    "Behaviour",
    "Body",
    "Cut",
    "Embedded",
    "FailThen",
    "Redirect",
    "RequestRecord",
    "Stall",
    "Trickle",
    "VideoServer",
    "distinct_clips",
    "html_page",
    "json_ld_video_page",
    "status_page",
    "video_page",
]
