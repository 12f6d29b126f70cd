"""The operator's per-user link limits, as a user meets them: the link past the limit gets a
reply saying when they can send again, and the count outlives a restart (it is in the store)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from testkit.telegram import Chat, User
from testkit.video_site import Body
from tests.e2e.conftest import ADMIN, Stack, _stack, new_user

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]

LIMITS = {"VIDRELAY_USER_HOURLY_LINKS": "3", "VIDRELAY_ADMIN_USER_IDS": str(ADMIN.id)}
LIMIT_REPLY = re.compile(
    r"✋ You can send 3 links an hour\. You can send more in (\d+m|1h) \(at \d\d:\d\d UTC\)\."
)


@pytest_asyncio.fixture
async def limited_users(tmp_path: Path) -> AsyncIterator[Stack]:
    async for stack in _stack(tmp_path, **LIMITS):
        yield stack


def link(stack: Stack, name: str) -> str:
    stack.site.set_route(f"/limits/{name}.mp4", Body(stack.site.clip("short").read_bytes(), "video/mp4"))
    return stack.site.url(f"/limits/{name}.mp4")


async def post_and_get_video(stack: Stack, user: User, url: str) -> None:
    await stack.video_reply(user.id, stack.api.send_text(Chat.private(user), user, url))


async def limit_reply(stack: Stack, user: User, message_id: int) -> str:
    reply = await stack.api.wait_for(
        lambda: next((m for m in stack.api.messages(user.id) if m.reply_to == message_id), None)
    )
    return reply.text or ""


async def test_the_fourth_link_in_an_hour_is_refused_saying_when_and_a_restart_keeps_the_count(
    limited_users: Stack,
) -> None:
    stack = limited_users
    user = new_user()
    for n in range(3):
        await post_and_get_video(stack, user, link(stack, f"{user.id}-{n}"))

    fourth = stack.api.send_text(Chat.private(user), user, link(stack, f"{user.id}-4"))

    assert LIMIT_REPLY.fullmatch(await limit_reply(stack, user, fourth))
    await stack.bot.close()
    await stack.new_bot(**LIMITS).start(stack.api)
    fifth = stack.api.send_text(Chat.private(user), user, link(stack, f"{user.id}-5"))
    assert LIMIT_REPLY.fullmatch(await limit_reply(stack, user, fifth))
    assert stack.site.hits(f"/limits/{user.id}-4.mp4") == stack.site.hits(f"/limits/{user.id}-5.mp4") == 0
    # Someone else, and an admin past the limit, are served.
    await post_and_get_video(stack, new_user(), link(stack, "other"))
    for n in range(4):
        await post_and_get_video(stack, ADMIN, link(stack, f"admin-{n}"))
