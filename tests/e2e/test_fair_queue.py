"""One heavy user never makes everyone else wait behind their backlog: the real bot claims
round-robin across requesters (ports.queue's fair order)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from testkit.telegram import Chat
from testkit.video_site import Body, Trickle
from tests.e2e.conftest import WAIT_SECONDS, Stack, _stack, new_user

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]

SLOW_SECONDS = 3.0
CACHE_HIT_BOUND_SECONDS = 1.0
"""A behaviour bound, not a benchmark: a cache hit is never answered after a download."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def three_workers(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stack]:
    env = {"VIDRELAY_JOB_CONCURRENCY": "3", "VIDRELAY_MAX_QUEUED_PER_USER": "20"}
    async for stack in _stack(tmp_path_factory.mktemp("e2e-fair"), **env):
        yield stack


def slow_links(stack: Stack, prefix: str, count: int) -> list[str]:
    """Distinct slow downloads (each its own blob): about SLOW_SECONDS of trickle each."""
    clip = stack.site.clip("short").read_bytes()
    paths = [f"/fair/{prefix}-{n}.mp4" for n in range(count)]
    for path in paths:
        stack.site.set_route(path, Trickle(clip, seconds=SLOW_SECONDS))
    return [stack.site.url(path) for path in paths]


async def until_jobs(stack: Stack, count: int) -> None:
    for _ in range(100):
        if await stack.jobs_left() >= count:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"never {count} jobs in the store")


async def test_a_light_users_link_arrives_before_the_heavy_users_fourth(three_workers: Stack) -> None:
    stack = three_workers
    heavy, light = new_user(), new_user()
    links = slow_links(stack, "heavy", 12)
    stack.api.send_text(Chat.private(heavy), heavy, "\n".join(links))
    await until_jobs(stack, 12)  # all 12 are jobs before the light user posts

    [link] = slow_links(stack, "light", 1)
    light_message = stack.api.send_text(Chat.private(light), light, link)

    log = await stack.log_until(light.id, light_message, bool)
    assert log.texts[0] == "⏳ Queued — 1 ahead of you"  # not 10: the backlog is not ahead
    light_video = await stack.video_reply(light.id, light_message, timeout=WAIT_SECONDS)
    heavy_videos = await stack.api.wait_for(
        lambda: (videos := stack.api.videos(heavy.id)) and len(videos) >= 4 and videos, timeout=WAIT_SECONDS
    )
    assert light_video.at < heavy_videos[3].at
    await stack.until_no_jobs()
    assert len(stack.api.videos(heavy.id)) == 12


async def test_a_cache_hit_behind_ten_queued_downloads_is_answered_at_once(three_workers: Stack) -> None:
    stack = three_workers
    first, heavy, second = new_user(), new_user(), new_user()
    stack.site.set_route("/fair/known.mp4", Body(stack.site.clip("short").read_bytes(), "video/mp4"))
    known = stack.site.url("/fair/known.mp4")
    await stack.video_reply(first.id, stack.api.send_text(Chat.private(first), first, known))
    stack.api.send_text(Chat.private(heavy), heavy, "\n".join(slow_links(stack, "behind", 10)))
    await until_jobs(stack, 10)  # three run, seven wait

    posted_at = time.monotonic()
    message_id = stack.api.send_text(Chat.private(second), second, known)

    video = await stack.video_reply(second.id, message_id)
    [call] = [c for c in stack.api.calls_of("sendVideo") if c.chat_id == second.id]
    assert video.source == "file_id"
    assert call.at - posted_at < CACHE_HIT_BOUND_SECONDS
    assert len(stack.api.videos(heavy.id)) < 10  # the downloads were still going
    await stack.until_no_jobs()
