"""The bot against a Bot API that enforces Telegram's flood limits: few calls for a fast job, a
progress bar for a slow one, and a group's burst that holds up nobody else."""

from __future__ import annotations

import itertools
import time

import pytest

from testkit.telegram import CallRecord, Chat, User
from testkit.video_site import Body, Trickle
from tests.e2e.conftest import WAIT_SECONDS, Stack, new_group, new_user

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]

EDIT_INTERVAL_SECONDS = 3.0
GROUP_LINKS = 25
GROUP_WAIT_SECONDS = 180.0
"""Telegram lets a group take 20 messages a minute: the 25th video cannot go before a minute is over."""
_paths = itertools.count(1)


def clip_url(stack: Stack, behaviour: Body | Trickle | None = None) -> str:
    path = f"/limited/clip-{next(_paths)}.mp4"
    stack.site.set_route(path, behaviour or Body(stack.site.clip("short").read_bytes(), "video/mp4"))
    return stack.site.url(path)


def calls_in(stack: Stack, chat_id: int) -> list[CallRecord]:
    return [c for c in stack.api.calls if c.chat_id == chat_id]


async def one_private_job(stack: Stack) -> tuple[User, int, float]:
    """A new user posts a short clip; their message id, and the seconds until the video came."""
    user = new_user()
    posted = time.monotonic()
    message_id = stack.api.send_text(Chat.private(user), user, clip_url(stack))
    video = await stack.video_reply(user.id, message_id)
    return user, message_id, video.at - posted


async def test_a_fast_private_job_is_the_log_message_the_video_and_one_edit(limited: Stack) -> None:
    user, message_id, _ = await one_private_job(limited)
    log = await limited.log_until(user.id, message_id, lambda t: "✅ Sent" in t)

    assert [c.method for c in calls_in(limited, user.id)] == ["sendMessage", "sendVideo", "editMessageText"]
    assert "🎬 Video info:" in (log.text or "")
    assert limited.api.too_many_requests == []


async def test_a_fast_audio_job_is_the_log_message_the_sound_and_one_edit(limited: Stack) -> None:
    user = new_user()
    url = await limited.site.add_ladder(f"/limited/song-{next(_paths)}", "A song in a video")
    message_id = limited.api.send_text(Chat.private(user), user, f"/audio {url}")
    await limited.api.wait_for(
        lambda: next((a for a in limited.api.audios(user.id) if a.reply_to == message_id), None),
        timeout=WAIT_SECONDS,
    )
    log = await limited.log_until(user.id, message_id, lambda t: "✅ Sent" in t)

    assert [c.method for c in calls_in(limited, user.id)] == ["sendMessage", "sendAudio", "editMessageText"]
    assert "🎬 Video info:" in (log.text or "")
    assert limited.api.too_many_requests == []


async def test_a_slow_download_shows_its_progress_at_most_every_three_seconds(limited: Stack) -> None:
    user = new_user()
    medium = limited.site.clip("medium").read_bytes()
    url = clip_url(limited, Trickle(medium, 20.0, chunks=80))
    message_id = limited.api.send_text(Chat.private(user), user, url)
    video = await limited.video_reply(user.id, message_id)
    log = await limited.log_until(user.id, message_id, lambda t: "✅ Sent" in t)

    progress = [v for v in log.history if v.at < video.at and "%" in (v.text or "")]
    gaps = [
        later.at - earlier.at for earlier, later in itertools.pairwise(log.history) if later.at < video.at
    ]
    assert len(progress) >= 3
    assert min(gaps) >= EDIT_INTERVAL_SECONDS
    assert "%" not in (log.text or "")  # the settled text has no progress bar left
    assert limited.api.too_many_requests == []


async def test_a_burst_of_links_in_one_group_holds_up_no_other_chat(limited: Stack) -> None:
    group = new_group()
    members = [User(900_000 + n, f"Member {n}") for n in range(GROUP_LINKS)]
    links = [limited.api.send_text(group, member, clip_url(limited)) for member in members]  # one batch
    # Once 20 videos are in, the group is closed for the rest of its minute: its last five jobs
    # wait in the queue for their turn, and a private chat's link now must not wait for them.
    await limited.api.wait_for(lambda: len(limited.api.videos(group.id)) >= 20, timeout=GROUP_WAIT_SECONDS)
    user, _, _ = await one_private_job(limited)
    await limited.api.wait_for(
        lambda: len(limited.api.videos(group.id)) == GROUP_LINKS, timeout=GROUP_WAIT_SECONDS
    )

    [private_video] = limited.api.videos(user.id)
    group_videos = sorted(v.at for v in limited.api.videos(group.id))
    assert private_video.at < group_videos[20]  # it went while the group's minute was closed
    assert sorted(v.reply_to or 0 for v in limited.api.videos(group.id)) == sorted(links)
    assert limited.api.too_many_requests == []
    assert [c.method for c in calls_in(limited, group.id)] == ["sendVideo"] * GROUP_LINKS
