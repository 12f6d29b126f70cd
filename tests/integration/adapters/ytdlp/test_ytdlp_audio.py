"""The sound alone and a smaller picture, with the real yt-dlp and ffmpeg against the local site."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from returns.result import Success

from adapters.ytdlp import YtDlpDownloader
from adapters.ytdlp.downloader import INFO_JSON_NAME
from adapters.ytdlp.heights import YtDlpFormatChoice
from ports.media import VideoInfo
from testkit.video_site import VideoServer
from testkit.video_site.ladder import rung
from tests.support.integration import CLIPS_DIR, CLOUD_LIMIT, names_in

pytestmark = pytest.mark.slow
TIMEOUT = 60.0


async def streams(path: Path) -> list[dict[str, object]]:
    """ffprobe's view of the file's streams (codec, type, and whether a picture is the cover)."""
    proc = await asyncio.create_subprocess_exec(
        "ffprobe",
        *("-v", "error", "-show_entries", "stream=codec_name,codec_type:stream_disposition=attached_pic"),
        *("-show_entries", "format=duration:format_tags=title", "-of", "json", str(path)),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await proc.communicate()
    data = json.loads(out)
    found: list[dict[str, object]] = data["streams"]
    return [*found, {"format": data["format"]}]


async def scrape_one(downloader: YtDlpDownloader, url: str) -> VideoInfo:
    result = await downloader.scrape(url, timeout=TIMEOUT)
    assert isinstance(result, Success), result
    [info] = result.unwrap()
    return info


async def test_the_sound_of_a_page_is_an_m4a_with_its_poster_as_the_cover(
    ytdlp: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    info = await scrape_one(ytdlp, await video_server.add_ladder())

    path = (await ytdlp.download_audio(info, staging, timeout=TIMEOUT)).unwrap()

    assert path.suffix == ".m4a"
    assert names_in(staging) == sorted([INFO_JSON_NAME, path.name])  # the cover is inside the file
    audio, cover, found = await streams(path)
    assert (audio["codec_type"], audio["codec_name"]) == ("audio", "aac")
    assert (cover["codec_type"], cover["disposition"]) == ("video", {"attached_pic": 1})
    fmt = found["format"]
    assert isinstance(fmt, dict)
    assert float(fmt["duration"]) == pytest.approx(2.0, abs=0.2)
    assert fmt["tags"]["title"] == info.title
    # Only one rung was fetched for its sound, and the smallest one: the picture is thrown away.
    fetched = [r.path for r in video_server.requests if r.path.endswith(".mp4")]
    assert fetched == ["/ladder/240.mp4"]


async def test_a_direct_clip_without_a_picture_gives_a_bare_m4a(
    ytdlp: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    info = await scrape_one(ytdlp, video_server.url("/clips/short.mp4"))

    path = (await ytdlp.download_audio(info, staging, timeout=TIMEOUT)).unwrap()

    [audio, found] = await streams(path)
    assert (audio["codec_type"], audio["codec_name"]) == ("audio", "aac")
    assert "format" in found


async def test_a_smaller_picture_is_chosen_from_the_scrape_and_downloads_at_that_height(
    ytdlp: YtDlpDownloader, video_server: VideoServer, staging: Path
) -> None:
    info = await scrape_one(ytdlp, await video_server.add_ladder())
    choice = YtDlpFormatChoice(max_filesize_bytes=CLOUD_LIMIT)

    small = choice.within_height(info, 480)
    tiny = choice.within_height(info, 100)  # nothing that small: the lowest the site has
    path = (await ytdlp.download(small, staging, timeout=TIMEOUT)).unwrap()

    assert (info.format_id, info.height) == ("720p", 720)
    assert (small.format_id, small.height, small.width) == ("480p", 480, 854)
    assert (tiny.format_id, tiny.height) == ("240p", 240)
    assert choice.within_height(small, 480) is small
    assert [r.path for r in video_server.requests if r.path.endswith(".mp4")] == ["/ladder/480.mp4"]
    assert path.read_bytes() == (CLIPS_DIR / rung(480).file_name).read_bytes()
