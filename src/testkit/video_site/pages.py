"""The site's HTML pages: plain, error, with a <video>, or with a schema.org VideoObject."""

from __future__ import annotations

import json

from testkit.video_site.behaviours import Body


def html_page(title: str, body: str = "", head: str = "") -> Body:
    return Body(
        f"<!DOCTYPE html><html><head><title>{title}</title>{head}</head><body>{body}</body></html>".encode()
    )


def status_page(status: int) -> Body:
    return Body(html_page(f"Error {status}", f"<h1>Error {status}</h1>").data, status=status)


def video_page(clip_path: str, title: str = "A test video") -> Body:
    video = f'<video controls><source src="{clip_path}" type="video/mp4"></video>'
    return html_page(title, f"<h1>{title}</h1>{video}")


def json_ld_video_page(content_url: str, title: str, seconds: int) -> Body:
    """A page whose schema.org VideoObject tells the duration: yt-dlp's scrape reports it before any
    download (an absolute `content_url` is needed for the generic extractor to take it)."""
    minutes, rest = divmod(seconds, 60)
    ld = {
        "@context": "https://schema.org",
        "@type": "VideoObject",
        "name": title,
        "duration": f"PT{minutes}M{rest}S",
        "contentUrl": content_url,
        "uploadDate": "2024-01-01",
    }
    script = f'<script type="application/ld+json">{json.dumps(ld)}</script>'
    return html_page(title, f"<h1>{title}</h1>", head=script)
