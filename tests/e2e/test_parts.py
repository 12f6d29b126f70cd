"""Past the upload limit, in parts, with the real bot, real yt-dlp and ffmpeg, and the fake Bot API in
cloud mode (50 MB a file): a video no watchable bitrate brings under 50 MB arrives as an album of
playable H.264/AAC parts; a repeat goes by their file_ids; one that would take more parts than
VIDRELAY_MAX_PARTS (8) is refused before a byte.

The source is made by ffmpeg in the test: 21 minutes 40 s of noise at ~480 kbit/s (84 MB) with a
keyframe every 5 s. Compressing 84 MB into 50 MB over 1300 s would leave ~230 kbit/s of picture,
under the watchable floor (250): so it must be cut, into two parts of ~42 MB. (Before parts, such
a video was refused before a byte: that refusal is now the one beyond the cap, tested here.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from adapters.ffmpeg import FfprobeProber
from ports.media import MediaProbe
from testkit.telegram import Chat, VideoRecord
from testkit.video_site import Body
from tests.e2e.conftest import CLIPS_DIR, Stack, _stack, new_user
from tests.support.sources import Source, make_source

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]
MB = 1024 * 1024
SECONDS = 1300
LONG_NOISE = Source(
    "noise-1300s-gop5",
    "mp4",
    ("libx264", "-preset", "ultrafast", "-b:v", "480k", "-maxrate", "480k", "-bufsize", "960k", "-g", "50"),
    ("aac", "-b:a", "32k", "-movflags", "+faststart"),
    seconds=SECONDS,
    size="96x64",
    noise=True,
    rate=10,
)
PATH = "/parts/long.mp4"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def cloud(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stack]:
    """A bot against a Bot API without a local server: 50 MB a file, every setting its default."""
    async for stack in _stack(tmp_path_factory.mktemp("parts")):
        made = await make_source(CLIPS_DIR / "sources", LONG_NOISE)
        stack.site.set_route(PATH, Body(made.read_bytes(), "video/mp4"))
        yield stack


async def post(stack: Stack, url: str) -> tuple[int, int]:
    user = new_user()
    return user.id, stack.api.send_text(Chat.private(user), user, url)


async def album_reply(stack: Stack, chat_id: int, message_id: int) -> list[VideoRecord]:
    def landed() -> list[VideoRecord] | None:
        albums = [a for a in stack.api.albums(chat_id) if a[0].reply_to == message_id]
        return albums[0] if albums else None

    return await stack.api.wait_for(landed, timeout=180)


async def probe(stack: Stack, part: VideoRecord) -> MediaProbe:
    probed = await FfprobeProber().probe(stack.api.uploaded_file(part.sha256))
    assert probed is not None
    return probed


async def test_a_video_no_bitrate_fits_arrives_as_an_album_of_playable_parts(cloud: Stack) -> None:
    assert cloud.api.upload_limit == 50 * MB
    chat_id, message_id = await post(cloud, cloud.site.url(PATH))

    album = await album_reply(cloud, chat_id, message_id)

    assert [p.caption for p in album] == ["Part 1/2", "Part 2/2"]
    assert all(p.source == "upload" and p.size < 50 * MB for p in album)
    probes = [await probe(cloud, p) for p in album]
    assert all((p.video_codec, p.pix_fmt, p.audio_codec) == ("h264", "yuv420p", "aac") for p in probes)
    assert all("mp4" in (p.container or "") for p in probes)
    assert sum(p.duration or 0 for p in probes) == pytest.approx(SECONDS, abs=1.0)
    assert all(p.thumbnail is not None and p.thumbnail.valid for p in album)
    assert cloud.api.videos(chat_id) == album  # the album and nothing else: not the whole, not twice
    log = await cloud.log_until(chat_id, message_id, lambda t: "✅ Sent" in t)
    assert "Compressing" not in "\n".join(t or "" for t in log.texts)


async def test_a_repeat_sends_the_parts_by_file_id_without_a_request_to_the_site(cloud: Stack) -> None:
    first_chat, first_message = await post(cloud, cloud.site.url(PATH))
    first = await album_reply(cloud, first_chat, first_message)
    await cloud.until_no_jobs()
    hits = cloud.site.hits(PATH)

    chat_id, message_id = await post(cloud, cloud.site.url(PATH))
    again = await album_reply(cloud, chat_id, message_id)

    assert [p.file_id for p in again] == [p.file_id for p in first]
    assert [p.source for p in again] == ["file_id", "file_id"]
    assert [p.caption for p in again] == ["Part 1/2", "Part 2/2"]
    assert cloud.site.hits(PATH) == hits


async def test_a_video_that_would_take_more_than_eight_parts_is_refused_before_any_segment(
    cloud: Stack,
) -> None:
    # 25 minutes declared at ~2.1 Mbit/s: ~400 MB, under the download cap (8 x 50 MB = 419 MB)
    # but 9 parts of 45 MB. Only playlists exist: a segment fetch would 404.
    variant = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-PLAYLIST-TYPE:VOD\n"
    variant += "#EXTINF:1.0,\nseg.ts\n" * 1500 + "#EXT-X-ENDLIST\n"
    codecs = 'CODECS="avc1.4d401e,mp4a.40.2"'
    master = f"#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2133000,RESOLUTION=640x360,{codecs}\nv.m3u8\n"
    cloud.site.set_route("/parts/nine/master.m3u8", Body(master.encode(), "application/vnd.apple.mpegurl"))
    cloud.site.set_route("/parts/nine/v.m3u8", Body(variant.encode(), "application/vnd.apple.mpegurl"))
    chat_id, message_id = await post(cloud, cloud.site.url("/parts/nine/master.m3u8"))

    refusal = await cloud.api.wait_for(
        lambda: next(
            (m for m in cloud.api.messages(chat_id) if "😞 Video too large" in (m.text or "")), None
        ),
        timeout=60,
    )

    assert refusal.reply_to == message_id
    assert refusal.text == "😞 Video too large (400 MB): it would take more than 8 parts"
    assert cloud.site.hits("/parts/nine/seg.ts") == 0
    assert cloud.api.videos(chat_id) == []
