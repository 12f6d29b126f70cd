"""Every link plays everywhere, with the real bot, real yt-dlp and ffmpeg, and the fake Bot API:
conversions to H.264/AAC, HLS and DASH, compress-to-fit, refusals, thumbnails and the download cap.

The sources are made by ffmpeg in the test (short and small); the fake Bot API keeps every upload,
so the tests probe what Telegram received.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from adapters.ffmpeg import FfprobeProber
from ports.media import MediaProbe
from testkit.telegram import Chat, VideoRecord
from testkit.video_site import Body, Stall, Trickle
from tests.e2e.conftest import CLIPS_DIR, INLINE_CACHE, Stack, _stack, new_user, sha256_of
from tests.support.sources import H264_AAC, HEVC_AAC, VP9_OPUS, Source, av1_source, make_source
from tests.support.streams import Variant, make_dash, make_hls, serve_folder

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]
SOURCES = CLIPS_DIR / "sources"
STREAMS = CLIPS_DIR / "streams"
MB = 1024 * 1024
AV1 = av1_source()
TWO = (Variant(240, 400), Variant(120, 100))
CAP = 1_000_000


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def media(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stack]:
    async for stack in _stack(tmp_path_factory.mktemp("media")):
        yield stack


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def capped(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stack]:
    """A bot that fetches nothing over 1 MB, for its chats and its inline results."""
    env = {"VIDRELAY_MAX_DOWNLOAD_BYTES": str(CAP), "VIDRELAY_INLINE_CACHE_CHAT_ID": str(INLINE_CACHE.id)}
    async for stack in _stack(tmp_path_factory.mktemp("capped"), **env):
        stack.api.add_chat(INLINE_CACHE)
        yield stack


async def probe(path: Path) -> MediaProbe:
    probed = await FfprobeProber().probe(path)
    assert probed is not None
    return probed


async def uploaded(stack: Stack, video: VideoRecord) -> MediaProbe:
    assert video.source == "upload"
    return await probe(stack.api.uploaded_file(video.sha256))


def plays_everywhere(probed: MediaProbe) -> bool:
    return (
        probed.video_codec == "h264"
        and probed.pix_fmt == "yuv420p"
        and probed.audio_codec == "aac"
        and "mp4" in (probed.container or "")
    )


async def post(stack: Stack, url: str) -> tuple[int, int]:
    user = new_user()
    return user.id, stack.api.send_text(Chat.private(user), user, url)


async def history(stack: Stack, chat_id: int, message_id: int) -> str:
    """Every text the log message showed, once it settled after the video (✅ Sent)."""
    log = await stack.log_until(chat_id, message_id, lambda t: "✅ Sent" in t)
    return "\n".join(t or "" for t in log.texts)


async def serve_source(stack: Stack, source: Source, path: str) -> Path:
    made = await make_source(SOURCES, source)
    content_type = "video/webm" if source.ext == "webm" else "video/mp4"
    stack.site.set_route(path, Body(made.read_bytes(), content_type))
    return made


CONVERTED = [
    pytest.param(VP9_OPUS, id="vp9-opus-webm"),
    pytest.param(HEVC_AAC, id="hevc-mp4"),
    pytest.param(
        AV1, id="av1-mp4", marks=pytest.mark.skipif(AV1 is None, reason="this ffmpeg has no AV1 encoder")
    ),
]


@pytest.mark.parametrize("source", CONVERTED)
async def test_a_source_not_every_client_plays_arrives_as_h264_aac_mp4(media: Stack, source: Source) -> None:
    path = f"/media/{source.name}.{source.ext}"
    await serve_source(media, source, path)
    chat_id, message_id = await post(media, media.site.url(path))

    video = await media.video_reply(chat_id, message_id)

    probed = await uploaded(media, video)
    assert plays_everywhere(probed), probed
    assert probed.duration == pytest.approx(2.0, abs=0.3)
    assert (video.width, video.height, video.duration) == (160, 120, 2)
    assert "🎞 Converting…" in await history(media, chat_id, message_id)
    assert video.thumbnail is not None
    assert video.thumbnail.valid


async def test_a_conversion_runs_once_per_video(media: Stack) -> None:
    path = "/media/once.webm"
    await serve_source(media, VP9_OPUS, path)
    first = await post(media, media.site.url(path))
    await media.video_reply(*first)
    second = await post(media, media.site.url(path))

    video = await media.video_reply(*second)

    assert video.source == "file_id"
    assert media.site.hits(path) == 2  # the first scrape and the first download; the second: cache


async def test_an_h264_aac_mp4_is_sent_byte_for_byte(media: Stack) -> None:
    path = "/media/h264.mp4"
    made = await serve_source(media, H264_AAC, path)
    chat_id, message_id = await post(media, media.site.url(path))

    video = await media.video_reply(chat_id, message_id)

    assert video.sha256 == sha256_of(made)
    assert "Converting" not in await history(media, chat_id, message_id)
    assert video.thumbnail is not None
    assert (video.thumbnail.width, video.thumbnail.height) == (160, 120)


async def test_an_hls_stream_arrives_with_picture_and_sound(media: Stack) -> None:
    serve_folder(media.site, "/media/hls", await make_hls(STREAMS, TWO))
    chat_id, message_id = await post(media, media.site.url("/media/hls/master.m3u8"))

    video = await media.video_reply(chat_id, message_id)

    probed = await uploaded(media, video)
    assert plays_everywhere(probed)
    assert probed.height == 240


async def test_a_dash_manifest_with_separate_tracks_arrives_merged(media: Stack) -> None:
    serve_folder(media.site, "/media/dash", await make_dash(STREAMS, TWO))
    chat_id, message_id = await post(media, media.site.url("/media/dash/manifest.mpd"))

    video = await media.video_reply(chat_id, message_id)

    probed = await uploaded(media, video)
    assert plays_everywhere(probed)
    assert probed.duration == pytest.approx(3.0, abs=0.3)


async def test_a_variant_declared_over_the_limit_is_never_fetched(media: Stack) -> None:
    folder = await make_hls(STREAMS, TWO)
    master = (folder / "master.m3u8").read_text()
    # Variant 0 now claims 200 Mbit/s: 3 s of it would be 75 MB, over the 50 MB limit.
    lying = re.sub(r"BANDWIDTH=\d+(,RESOLUTION=320x240)", r"BANDWIDTH=200000000\1", master)
    assert lying != master
    serve_folder(media.site, "/media/lying", folder, replace={"master.m3u8": lying.encode()})
    chat_id, message_id = await post(media, media.site.url("/media/lying/master.m3u8"))

    video = await media.video_reply(chat_id, message_id)

    assert (await uploaded(media, video)).height == 120
    segments = {r.path for r in media.site.requests if r.path.startswith("/media/lying/")}
    assert any(p.startswith("/media/lying/v1_") for p in segments)
    assert not any(p.startswith("/media/lying/v0_") for p in segments)


async def test_a_64_mb_source_is_compressed_under_50_mb(media: Stack) -> None:
    big = Source(
        "noise-64mb",
        "mp4",
        ("libx264", "-preset", "ultrafast", "-qp", "0"),
        ("aac",),
        seconds=24,
        size="320x240",
        noise=True,
        rate=25,
    )
    path = "/media/big.mp4"
    made = await serve_source(media, big, path)
    assert made.stat().st_size > 64 * MB
    chat_id, message_id = await post(media, media.site.url(path))

    video = await media.video_reply(chat_id, message_id, timeout=180)

    assert video.size < 50 * MB
    probed = await uploaded(media, video)
    assert plays_everywhere(probed)
    assert probed.duration == pytest.approx(24.0, abs=1.0)
    assert "📦 Compressing to fit 50 MB…" in await history(media, chat_id, message_id)


# The download cap -------------------------------------------------------------------------------


def edits_after(stack: Stack, chat_id: int, at: float) -> list[str]:
    return [
        c.method
        for c in stack.api.calls
        if c.chat_id == chat_id and c.method in {"editMessageText", "sendMessage", "sendVideo"} and c.at > at
    ]


async def refusal_of(stack: Stack, chat_id: int, message_id: int) -> float:
    """The time the refusal went out, once the job that sent it is finished per the store."""
    await stack.api.wait_for(
        lambda: next(
            (m for m in stack.api.messages(chat_id) if "😞 Video too large" in (m.text or "")), None
        ),
        timeout=60,
    )
    await stack.until_no_jobs()
    [call] = [
        c
        for c in stack.api.calls_of("sendMessage")
        if c.chat_id == chat_id and "Video too large" in str(c.params)
    ]
    assert stack.site.requests  # the site was asked at all
    return call.at


def staging_files(stack: Stack) -> list[Path]:
    staging = stack.root / "data" / "staging"
    return [p for p in staging.rglob("*") if p.is_file()] if staging.exists() else []


async def test_a_direct_link_announced_over_the_cap_is_refused_without_its_body(capped: Stack) -> None:
    # Headers promise 5 MB, then nothing follows: only a refusal by the announced length ends it.
    capped.site.set_route("/cap/announced.mp4", Stall(content_length=5 * CAP))
    chat_id, message_id = await post(capped, capped.site.url("/cap/announced.mp4"))

    refused_at = await refusal_of(capped, chat_id, message_id)

    assert capped.api.videos(chat_id) == []
    assert edits_after(capped, chat_id, refused_at) == []
    assert staging_files(capped) == []


async def test_a_body_without_a_length_is_stopped_once_past_the_cap(capped: Stack) -> None:
    body = os.urandom(4 * CAP)
    capped.site.set_route("/cap/chunked.mp4", Trickle(body, seconds=4.0, chunks=40, announce_length=False))
    chat_id, message_id = await post(capped, capped.site.url("/cap/chunked.mp4"))

    refused_at = await refusal_of(capped, chat_id, message_id)

    assert capped.api.videos(chat_id) == []
    assert edits_after(capped, chat_id, refused_at) == []
    assert staging_files(capped) == []


def estimated_over_the_cap(stack: Stack, prefix: str) -> str:
    """An HLS video whose playlists say 60 s at ~533 kbit/s (~4 MB: over the cap, under the
    upload limit). No segment is served: fetching one is what the cap must prevent."""
    variant = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-PLAYLIST-TYPE:VOD\n"
    variant += "#EXTINF:1.0,\nseg.ts\n" * 60 + "#EXT-X-ENDLIST\n"
    codecs = 'CODECS="avc1.4d401e,mp4a.40.2"'
    master = f"#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=533000,RESOLUTION=640x360,{codecs}\nv.m3u8\n"
    stack.site.set_route(f"{prefix}/master.m3u8", Body(master.encode(), "application/vnd.apple.mpegurl"))
    stack.site.set_route(f"{prefix}/v.m3u8", Body(variant.encode(), "application/vnd.apple.mpegurl"))
    return stack.site.url(f"{prefix}/master.m3u8")


async def test_a_video_estimated_over_the_cap_is_refused_before_any_segment(capped: Stack) -> None:
    chat_id, message_id = await post(capped, estimated_over_the_cap(capped, "/cap/estimated"))

    await refusal_of(capped, chat_id, message_id)

    assert capped.site.hits("/cap/estimated/seg.ts") == 0
    assert capped.api.videos(chat_id) == []


async def test_an_inline_video_estimated_over_the_cap_is_refused_before_any_segment(capped: Stack) -> None:
    user = new_user()
    url = estimated_over_the_cap(capped, "/cap/inline")
    cached_before = capped.api.videos(INLINE_CACHE.id)
    query = capped.api.send_inline_query(user, url)
    answer = await capped.api.wait_for(lambda: capped.api.inline_answer(query), timeout=60)
    [full] = [r for r in answer.results if r.get("title") != "🎵 Audio only"][:1]

    inline_id = capped.api.choose_inline_result(user, str(full["id"]), query=url)

    def failed() -> str | None:
        shown = capped.api.inline_message(inline_id)
        text = shown.text if shown is not None else None
        return text if text is not None and text.startswith("💥") else None

    text = await capped.api.wait_for(failed, timeout=60)
    assert "😞 Video too large (4 MB)" in text
    assert capped.site.hits("/cap/inline/seg.ts") == 0
    assert capped.api.videos(INLINE_CACHE.id) == cached_before
