"""A page that embeds several different videos, as a new user posts one: the real bot process,
real yt-dlp (which lists the page as a playlist of html5 entries sharing the page's URL and format
id), clips made by ffmpeg, and the fake Bot API keeping every upload."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from adapters.ffmpeg import FfprobeProber
from testkit.clips import ensure_clips
from testkit.telegram import Chat, VideoRecord
from testkit.video_site import Embedded, distinct_clips
from tests.e2e.conftest import CLIPS_DIR, WAIT_SECONDS, Stack, new_user, sha256_of

pytestmark = [pytest.mark.asyncio(loop_scope="package"), pytest.mark.slow]


async def replies(stack: Stack, chat_id: int, message_id: int, count: int) -> list[VideoRecord]:
    """The videos sent in reply to the link, once `count` arrived and no job is left to send more."""
    await stack.api.wait_for(
        lambda: len([v for v in stack.api.videos(chat_id) if v.reply_to == message_id]) >= count or None,
        timeout=WAIT_SECONDS,
    )
    await stack.until_no_jobs()
    return stack.api.videos(chat_id)


def site_requests(stack: Stack, prefix: str) -> int:
    return len([r for r in stack.site.requests if r.path.startswith(prefix)])


async def picture(stack: Stack, video: VideoRecord) -> tuple[int, int, float]:
    """What Telegram holds under the video: its size and duration, probed from the bytes."""
    file = stack.api.file(video.file_id)
    assert file is not None
    probed = await FfprobeProber().probe(stack.api.uploaded_file(file.sha256))
    assert probed is not None
    width, height, duration = probed.width, probed.height, probed.duration
    assert width is not None
    assert height is not None
    assert duration is not None
    return width, height, round(duration)


async def post_page(stack: Stack, url: str) -> tuple[int, int]:
    user = new_user()
    return user.id, stack.api.send_text(Chat.private(user), user, url)


async def assert_each_video_once(
    stack: Stack, url: str, prefix: str, videos: Sequence[Embedded]
) -> list[VideoRecord]:
    chat_id, message_id = await post_page(stack, url)

    sent = await replies(stack, chat_id, message_id, len(videos))

    assert len(sent) == len(videos), [(v.message_id, v.sha256) for v in sent]
    assert all(v.reply_to == message_id for v in sent)
    expected = sorted((v.clip.width, v.clip.height, round(v.clip.seconds)) for v in videos)
    assert sorted([await picture(stack, v) for v in sent]) == expected
    assert len({v.file_id for v in sent}) == len(videos)
    for video in videos:
        if not video.hls:  # an MP4 of H.264/AAC goes byte for byte
            [served] = (await ensure_clips(CLIPS_DIR, [video.clip])).values()
            assert sum(1 for v in sent if v.sha256 == sha256_of(served)) == 1
    assert not any("💥" in (m.text or "") or "⚠️" in (m.text or "") for m in stack.api.messages(chat_id))
    return sent


async def test_a_page_with_three_videos_delivers_each_once_and_a_repeat_by_file_id(shared: Stack) -> None:
    prefix = "/e2e/gallery-three"
    videos = [Embedded(clip) for clip in distinct_clips("gallery-three", 3)]
    url = await shared.site.add_gallery(prefix, videos)

    first = await assert_each_video_once(shared, url, prefix, videos)

    for video in videos:
        assert shared.site.hits(f"{prefix}/{video.clip.name}.mp4") == 1
    before = site_requests(shared, prefix)
    chat_id, message_id = await post_page(shared, url)
    again = await replies(shared, chat_id, message_id, len(videos))
    assert [v.source for v in again] == ["file_id"] * len(videos)
    assert sorted(v.file_id for v in again) == sorted(v.file_id for v in first)
    assert all(v.reply_to == message_id for v in again)
    assert site_requests(shared, prefix) == before  # no scrape, no download


async def test_a_page_with_an_hls_stream_and_an_mp4_delivers_both(shared: Stack) -> None:
    prefix = "/e2e/gallery-mixed"
    hls, mp4 = distinct_clips("gallery-mixed", 2)
    videos = [Embedded(hls, hls=True), Embedded(mp4)]
    url = await shared.site.add_gallery(prefix, videos)

    await assert_each_video_once(shared, url, prefix, videos)

    assert shared.site.hits(f"{prefix}/{hls.name}/index.m3u8") >= 1
    assert shared.site.hits(f"{prefix}/{mp4.name}.mp4") == 1
    before = site_requests(shared, prefix)
    chat_id, message_id = await post_page(shared, url)
    again = await replies(shared, chat_id, message_id, len(videos))
    assert [v.source for v in again] == ["file_id"] * len(videos)
    assert site_requests(shared, prefix) == before
