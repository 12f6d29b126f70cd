"""A cookies.txt handed to the real yt-dlp: each run reads a private copy (the operator's file is
never rewritten, no copy outlives its run) and no cookie value is kept in the scraped entry."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from adapters.ytdlp import YtDlpDownloader
from adapters.ytdlp.cookies import without_cookies
from testkit.video_site import VideoServer
from tests.support.integration import CLOUD_LIMIT

pytestmark = pytest.mark.slow
SECRET = "s3cr3t-session-value"


def cookies_txt() -> str:
    # Netscape format: domain, subdomains, path, secure, expiry, name, value (tab-separated).
    return (
        "# Netscape HTTP Cookie File\n"
        + "\t".join(["127.0.0.1", "FALSE", "/", "FALSE", "4102444800", "session", SECRET])
        + "\n"
    )


def copies_left() -> list[Path]:
    return sorted(Path(tempfile.gettempdir()).glob("vidrelay-cookies-*"))


async def test_a_run_reads_a_copy_and_the_entry_keeps_no_cookie(
    video_server: VideoServer, tmp_path: Path
) -> None:
    jar = tmp_path / "cookies.txt"
    jar.write_text(cookies_txt())
    jar.chmod(0o400)  # read-only, as a mounted secret is: yt-dlp must never need to write it
    before = jar.read_bytes()
    downloader = YtDlpDownloader(max_filesize_bytes=CLOUD_LIMIT, cookies_file=jar, kill_grace_seconds=1.0)
    staging = tmp_path / "staging"
    staging.mkdir()
    try:
        [info] = (await downloader.scrape(video_server.url("/clips/short.mp4"), timeout=60)).unwrap()
        path = (await downloader.download(info, staging, timeout=60)).unwrap()
    finally:
        await downloader.shutdown()

    assert path.stat().st_size == video_server.clip("short").stat().st_size
    sent = [r.headers.get("Cookie", "") for r in video_server.requests]
    assert sent
    assert all(f"session={SECRET}" in cookie for cookie in sent)  # the scrape and the download
    assert SECRET not in info.info_json
    assert jar.read_bytes() == before
    assert copies_left() == []


def test_cookies_are_stripped_from_every_format_and_header() -> None:
    line = (
        '{"id": "x", "cookies": "a=1", "http_headers": {"Cookie": "a=1", "Accept": "*/*"},'
        ' "formats": [{"format_id": "0", "cookies": "a=1"}], "requested_formats": [{"cookies": "a=1"}]}'
    )
    cleaned = without_cookies(line)
    assert "a=1" not in cleaned
    assert '"Accept": "*/*"' in cleaned
    assert without_cookies('not json but has "cookies"') == 'not json but has "cookies"'
