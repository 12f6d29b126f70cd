"""An update is the bot's before Telegram hears it arrived, as real processes: with the SQLite
file locked by another program, a link that arrives is not confirmed to Telegram (no getUpdates
with a higher offset; the webhook answers 503), so a SIGKILL or a SIGTERM then costs nothing:
restarted after the lock is gone, the bot delivers the link exactly once."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from core import texts
from testkit.bot_process import BotProcess, bot_environment
from testkit.telegram import Chat, FakeBotApi, User
from testkit.telegram.records import CallRecord
from tests.e2e.conftest import WAIT_SECONDS, Stack, _stack, new_user, sha256_of, until_logged
from tests.e2e.test_store_faults import FileLock, free_port

pytestmark = pytest.mark.slow

NOT_KEPT = "not kept, so not confirmed to Telegram"
"""What the bot logs once the store refused a batch it fetched (after SQLite's busy timeout)."""


def update_id_of(calls: list[CallRecord], chat_id: int, message_id: int) -> int | None:
    """The id of the update carrying this message, once a getUpdates answer handed it out."""
    for call in calls:
        if call.method != "getUpdates" or not call.ok or not isinstance(call.result, list):
            continue
        for update in call.result:
            message = update.get("message") or {}
            if message.get("message_id") == message_id and message.get("chat", {}).get("id") == chat_id:
                return int(update["update_id"])
    return None


def confirmed(calls: list[CallRecord], update_id: int) -> bool:
    """Whether a getUpdates named an offset past `update_id`: Telegram has forgotten it then."""
    return any(
        c.method == "getUpdates" and int(c.params.get("offset") or 0) > update_id for c in calls if c.params
    )


async def handed_out_and_then_confirmed_or_refused(stack: Stack, user: User, message_id: int) -> int:
    """Until the bot fetched the link's update and then either confirmed it (what it must not do
    while the store refuses it) or said that it would not: the moment the old bot lost it."""
    update_id = await stack.api.wait_for(
        lambda: update_id_of(stack.api.calls, user.id, message_id), timeout=WAIT_SECONDS
    )
    deadline = time.monotonic() + WAIT_SECONDS
    while not (confirmed(stack.api.calls, update_id) or NOT_KEPT in stack.bot.log()):
        assert time.monotonic() < deadline, f"neither confirmed nor refused:\n{stack.bot.log()}"
        await asyncio.sleep(0.1)
    return update_id


async def delivered_exactly_once(stack: Stack, user: User, message_id: int) -> None:
    video = await stack.video_reply(user.id, message_id, timeout=WAIT_SECONDS)
    assert video.sha256 == sha256_of(stack.site.clip("short"))
    await stack.until_no_jobs()
    assert [v.reply_to for v in stack.api.videos(user.id)] == [message_id]
    assert texts.SEND_AGAIN_LATER not in [m.text for m in stack.api.messages(user.id)]


async def test_sigkill_while_the_store_is_locked_costs_no_link(fresh: Stack) -> None:
    stack, user = fresh, new_user()
    lock = FileLock(stack.root / "data" / "vidrelay.db")
    await lock.hold()
    try:
        message_id = stack.api.send_text(Chat.private(user), user, stack.site.url("/clips/short.mp4?kill=1"))
        update_id = await handed_out_and_then_confirmed_or_refused(stack, user, message_id)
        assert not confirmed(stack.api.calls, update_id)
        await stack.bot.kill()
    finally:
        await lock.release()

    await stack.new_bot().start(stack.api)
    await delivered_exactly_once(stack, user, message_id)


async def test_sigterm_while_the_store_is_locked_leaves_the_link_with_telegram(fresh: Stack) -> None:
    stack, user = fresh, new_user()
    lock = FileLock(stack.root / "data" / "vidrelay.db")
    await lock.hold()
    try:
        message_id = stack.api.send_text(Chat.private(user), user, stack.site.url("/clips/short.mp4?term=1"))
        await stack.api.wait_for(
            lambda: update_id_of(stack.api.calls, user.id, message_id), timeout=WAIT_SECONDS
        )
        assert await stack.bot.terminate() == 0  # while the batch waits for the store
        update_id = update_id_of(stack.api.calls, user.id, message_id)
        assert update_id is not None
        assert not confirmed(stack.api.calls, update_id)
    finally:
        await lock.release()

    await stack.new_bot().start(stack.api)
    await delivered_exactly_once(stack, user, message_id)


async def test_a_link_kept_before_a_sigkill_is_replayed_from_the_inbox_once(fresh: Stack) -> None:
    """Kept, confirmed, killed before its job was handled to the end: the inbox replays it and
    the handled-URL guard keeps the replay from queueing it twice."""
    stack, user = fresh, new_user()
    message_id = stack.api.send_text(Chat.private(user), user, stack.site.url("/clips/short.mp4?replay=1"))
    await stack.video_reply(user.id, message_id, timeout=WAIT_SECONDS)
    await stack.until_no_jobs()  # its job is done and gone: only the update is left to replay
    await stack.bot.kill()
    with_inbox = stack.root / "data" / "vidrelay.db"
    await asyncio.to_thread(_mark_waiting, with_inbox)  # as if the kill came before its mark

    await stack.new_bot().start(stack.api)
    await until_logged(stack.bot, "replaying 1 update(s)")
    await stack.until_no_jobs()
    assert [v.reply_to for v in stack.api.videos(user.id)] == [message_id]


def _mark_waiting(path: Path) -> None:
    import sqlite3

    with sqlite3.connect(path, timeout=30) as db:
        db.execute("UPDATE inbox SET handled_at = NULL")


@pytest_asyncio.fixture
async def hooked(tmp_path: Path) -> AsyncIterator[tuple[Stack, int, str]]:
    port, secret = free_port(), secrets.token_urlsafe(16)
    webhook = {
        "VIDRELAY_WEBHOOK_URL": f"http://127.0.0.1:{port}/webhook",
        "VIDRELAY_WEBHOOK_SECRET": secret,
        "VIDRELAY_WEBHOOK_PORT": str(port),
    }
    async for stack in _stack(tmp_path, VIDRELAY_JOB_CONCURRENCY="1", webhook=True, **webhook):
        yield stack, port, secret


async def post(port: int, secret: str, update: dict[str, Any]) -> int:
    headers = {"X-Telegram-Bot-Api-Secret-Token": secret}
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"http://127.0.0.1:{port}/webhook", json=update, headers=headers) as answer,
    ):
        return answer.status


async def test_the_webhook_never_answers_200_for_an_update_the_store_did_not_keep(
    hooked: tuple[Stack, int, str],
) -> None:
    stack, port, secret = hooked
    user = new_user()
    message_id = stack.api.send_text(Chat.private(user), user, stack.site.url("/clips/short.mp4?hook=1"))
    [update] = stack.api.take_updates()  # what Telegram would POST
    lock = FileLock(stack.root / "data" / "vidrelay.db")
    await lock.hold()
    try:
        assert await post(port, secret, update) == 503
        assert await post(port, "wrong", update) == 401
    finally:
        await lock.release()
    assert stack.api.videos(user.id) == []

    assert await post(port, secret, update) == 200  # Telegram delivers it again
    assert await post(port, secret, update) == 200  # and once more: a duplicate delivery
    await delivered_exactly_once(stack, user, message_id)


async def test_a_webhook_bot_on_an_unlocked_store_delivers_a_posted_link(tmp_path: Path) -> None:
    port, secret = free_port(), secrets.token_urlsafe(16)
    async with FakeBotApi() as api:
        env = bot_environment(
            api,
            tmp_path / "data",
            VIDRELAY_ALLOW_PRIVATE_URLS="true",
            VIDRELAY_WEBHOOK_URL=f"http://127.0.0.1:{port}/webhook",
            VIDRELAY_WEBHOOK_SECRET=secret,
            VIDRELAY_WEBHOOK_PORT=str(port),
        )
        bot = BotProcess(env, tmp_path / "bot.log", webhook=True)
        await bot.start(api)
        try:
            assert api.webhook == {"url": f"http://127.0.0.1:{port}/webhook", "secret_token": secret}
            user = new_user()
            api.send_text(Chat.private(user), user, "hello, no link here")
            [update] = api.take_updates()
            assert await post(port, secret, update) == 200
            assert await post(port, secret, {"not": "an update"}) == 400
            assert bot.running
        finally:
            assert await bot.terminate() == 0
