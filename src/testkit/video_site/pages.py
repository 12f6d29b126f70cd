"""The site's HTML pages: plain, error, a bot check, with a <video>, or with a schema.org VideoObject."""

from __future__ import annotations

import json

from testkit.video_site.behaviours import Body


def html_page(title: str, body: str = "", head: str = "") -> Body:
    return Body(
        f"<!DOCTYPE html><html><head><title>{title}</title>{head}</head><body>{body}</body></html>".encode()
    )


def status_page(status: int) -> Body:
    return Body(html_page(f"Error {status}", f"<h1>Error {status}</h1>").data, status=status)


def cloudflare_challenge() -> Body:
    """What a site behind Cloudflare's bot check answers a client it takes for a bot: a 403 with
    `cf-mitigated: challenge` and the "Attention Required!" page (yt-dlp names it a bot check)."""
    page = html_page("Attention Required! | Cloudflare", "<h1>Please verify you are a human</h1>")
    return Body(page.data, status=403, headers=(("cf-mitigated", "challenge"),))


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
