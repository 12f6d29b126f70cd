"""/cancel as a user meets it, with the real bot process: the running download's connection is
closed at once, no video comes, the log message ends 🚫 and nothing calls it a failure; in a
group someone else's /cancel is refused; `/cancel all` and the 🚫 button under the log message
reach the same stop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from testkit.bot_process import BotProcess
from testkit.telegram import Chat, FakeBotApi, User
from testkit.video_site import Body, RequestRecord, Trickle, VideoServer
from tests.e2e.conftest import VIDRELAY, WAIT_SECONDS, Stack, _stack, new_group, new_user, sha256_of

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]

STOP_BOUND_SECONDS = 2.0
"""The promise: a running download stops within this, whichever process runs it."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def bot(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stack]:
    async for stack in _stack(tmp_path_factory.mktemp("e2e-cancel")):
        yield stack


def endless_download(site: VideoServer, path: str) -> str:
    """The medium clip trickled over a minute in fine steps: the server sees a closed connection
    at its next write, a twentieth of a second later."""
    site.set_route(path, Trickle(site.clip("medium").read_bytes(), seconds=60, chunks=1200))
    return site.url(path)


def quick_clip_on(site: VideoServer, path: str) -> str:
    site.set_route(path, Body(site.clip("short").read_bytes(), "video/mp4"))
    return site.url(path)


def body_request(site: VideoServer, path: str) -> RequestRecord | None:
    """The download of the body: the request after the scrape's."""
    records = [r for r in site.requests if r.path == path]
    return records[-1] if len(records) >= 2 else None


def downloading(site: VideoServer, path: str) -> bool:
    return (body := body_request(site, path)) is not None and body.finished is None


def download_closed(site: VideoServer, path: str) -> bool:
    return (body := body_request(site, path)) is not None and body.finished is not None


async def until(condition: object, what: str) -> None:
    deadline = asyncio.get_running_loop().time() + WAIT_SECONDS
    while not condition():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline, what
        await asyncio.sleep(0.02)


async def failed_jobs_listing(bot: BotProcess) -> str:
    proc = await asyncio.create_subprocess_exec(
        str(VIDRELAY),
        *("jobs", "list", "--failed", "--json"),
        env=bot._env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    out, _ = await proc.communicate()
    assert proc.returncode == 0
    return out.decode()


async def cancel_a_running_download(api: FakeBotApi, site: VideoServer, user: User, path: str) -> int:
    """Post an endless download, /cancel it by a reply once its body is coming; asserts the
    connection closed within the bound. The link's message id."""
    chat = Chat.private(user)
    message_id = api.send_text(chat, user, endless_download(site, path))
    await until(lambda: downloading(site, path), "no download")

    asked_at = asyncio.get_running_loop().time()
    api.send_text(chat, user, "/cancel", reply_to=message_id)
    await until(lambda: download_closed(site, path), "still open")

    body = body_request(site, path)
    assert body is not None
    assert body.finished is not None
    assert body.finished - asked_at < STOP_BOUND_SECONDS
    return message_id


async def test_a_running_download_cancelled_by_a_reply_stops_and_is_no_failure(bot: Stack) -> None:
    user = new_user()
    message_id = await cancel_a_running_download(bot.api, bot.site, user, f"/cancel/{user.id}.mp4")

    log = await bot.log_until(user.id, message_id, lambda text: text.endswith("🚫 Cancelled"))
    assert log.reply_to == message_id
    assert bot.api.videos(user.id) == []
    assert f"/cancel/{user.id}.mp4" not in await failed_jobs_listing(bot.bot)
    staging = bot.root / "data" / "staging"
    assert not [p for p in staging.rglob("*") if p.is_file()]  # the partial download went
    # The same user's next link is delivered.
    next_id = bot.api.send_text(
        Chat.private(user), user, quick_clip_on(bot.site, f"/cancel/{user.id}-next.mp4")
    )
    video = await bot.video_reply(user.id, next_id)
    assert video.sha256 == sha256_of(bot.site.clip("short"))


async def test_in_a_group_someone_elses_cancel_is_refused_and_the_link_goes_on(bot: Stack) -> None:
    group, sender, other = new_group(), new_user(), new_user()
    path = f"/cancel/group-{sender.id}.mp4"
    bot.site.set_route(path, Trickle(bot.site.clip("short").read_bytes(), seconds=3))
    message_id = bot.api.send_text(group, sender, bot.site.url(path))
    await until(lambda: bot.site.hits(path) > 0, "the link was never taken")  # it is a job now

    refusal_to = bot.api.send_text(group, other, "/cancel", reply_to=message_id)

    reply = await bot.api.wait_for(
        lambda: next((m for m in bot.api.messages(group.id) if m.reply_to == refusal_to), None)
    )
    assert reply.text == "Only the person who sent the link, or an admin of this group, can cancel it."
    video = await bot.video_reply(group.id, message_id)
    assert video.sha256 == sha256_of(bot.site.clip("short"))


async def test_cancel_all_stops_every_link_of_its_sender_and_says_how_many(bot: Stack) -> None:
    user, other = new_user(), new_user()
    chat = Chat.private(user)
    paths = [f"/cancel/all-{user.id}-{n}.mp4" for n in range(2)]
    links = [bot.api.send_text(chat, user, endless_download(bot.site, path)) for path in paths]
    others = bot.api.send_text(
        Chat.private(other), other, quick_clip_on(bot.site, f"/cancel/all-{other.id}.mp4")
    )
    for path in paths:
        await until(lambda p=path: bot.site.hits(p) > 0, f"{path} was never taken")

    asked = bot.api.send_text(chat, user, "/cancel all")

    reply = await bot.api.wait_for(
        lambda: next((m for m in bot.api.messages(user.id) if m.reply_to == asked), None)
    )
    assert reply.text == "🚫 Cancelled 2 of your links."
    for link in links:
        await bot.log_until(user.id, link, lambda text: text.endswith("🚫 Cancelled"))
    assert bot.api.videos(user.id) == []
    video = await bot.video_reply(other.id, others)  # someone else's link is not theirs to cancel
    assert video.sha256 == sha256_of(bot.site.clip("short"))


async def test_the_cancel_button_under_the_log_message_stops_the_download(bot: Stack) -> None:
    user = new_user()
    path = f"/cancel/button-{user.id}.mp4"
    link = bot.api.send_text(Chat.private(user), user, endless_download(bot.site, path))
    await until(lambda: downloading(bot.site, path), "no download")
    log = await bot.api.wait_for(
        lambda: (m := bot.log_message(user.id, link)) is not None and m.reply_markup is not None and m
    )
    assert log.reply_markup is not None
    [[button]] = log.reply_markup["inline_keyboard"]
    assert button["text"] == "🚫 Cancel"

    pressed_at = asyncio.get_running_loop().time()
    press = bot.api.press_button(Chat.private(user), user, log.message_id, button["callback_data"])
    await until(lambda: download_closed(bot.site, path), "still open")

    body = body_request(bot.site, path)
    assert body is not None
    assert body.finished is not None
    assert body.finished - pressed_at < STOP_BOUND_SECONDS
    await bot.log_until(user.id, link, lambda text: text.endswith("🚫 Cancelled"))
    answer = await bot.api.wait_for(lambda: bot.api.callback_answer(press))
    assert answer is not None
    assert bot.api.videos(user.id) == []
