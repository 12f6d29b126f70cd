"""The bot as a real process when its SQLite file is locked or not a database at all: a link that
arrives meanwhile is not confirmed to Telegram until the store kept it, so it is never lost and
nobody is asked to send it again, and a start that cannot be safe says why in one line.
(A second bot on a data folder in use: tests/e2e/test_backup.py.)"""

from __future__ import annotations

import asyncio
import hashlib
import os
import socket
import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
import pytest_asyncio

from core import texts
from testkit.bot_process import BotProcess, bot_environment
from testkit.telegram import Chat, FakeBotApi, User
from testkit.video_site import Trickle, VideoServer
from tests.e2e.conftest import CLIPS_DIR, WAIT_SECONDS, Stack, _stack, new_user, sha256_of, until_logged
from tests.e2e.test_bot_lifecycle import download_in_flight
from tests.support.damage import filled_and_closed, scribble_table_pages

pytestmark = pytest.mark.slow

BUSY_TIMEOUT_SECONDS = 5.0  # the store's default: a write waits this long for a lock, then fails
LOCK_SECONDS = 4 * BUSY_TIMEOUT_SECONDS
HELD_AFTER_REFUSAL_SECONDS = 2 * BUSY_TIMEOUT_SECONDS
"""Once a write was refused, the lock outlasts two more busy waits: the retries meet it too."""


class FileLock:
    """Another program (a long write, a backup tool) holding the file's write lock."""

    def __init__(self, path: Path) -> None:
        self._connection = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)

    async def hold(self) -> None:
        await asyncio.to_thread(self._connection.execute, "BEGIN EXCLUSIVE")

    async def release(self) -> None:
        await asyncio.to_thread(self._connection.execute, "ROLLBACK")
        await asyncio.to_thread(self._connection.close)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def health(port: int) -> int:
    async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{port}/healthz") as answer:
        return answer.status


async def health_becomes(port: int, status: int, within: float) -> None:
    deadline = time.monotonic() + within
    while (seen := await health(port)) != status:
        assert time.monotonic() < deadline, f"/healthz stayed {seen}, not {status}"
        await asyncio.sleep(0.5)


@pytest_asyncio.fixture
async def busy(tmp_path: Path) -> AsyncIterator[tuple[Stack, int]]:
    """A bot with three workers and its health endpoint on."""
    port = free_port()
    async for stack in _stack(tmp_path, VIDRELAY_METRICS_PORT=str(port)):
        yield stack, port


def post_from_three_chats(stack: Stack, clip: str) -> list[tuple[User, int]]:
    posted = []
    for _ in range(3):
        user = new_user()
        url = stack.site.url(f"/clips/{clip}.mp4?user={user.id}")
        posted.append((user, stack.api.send_text(Chat.private(user), user, url)))
    return posted


async def test_links_that_arrive_while_the_file_is_locked_are_delivered_after_the_release(
    busy: tuple[Stack, int],
) -> None:
    stack, port = busy
    lock = FileLock(stack.root / "data" / "vidrelay.db")
    await lock.hold()
    try:
        posted = post_from_three_chats(stack, "short")
        await until_handed_out(stack, posted)
        await health_becomes(port, 503, within=LOCK_SECONDS)  # the store refuses writes: /healthz says so
        await asyncio.sleep(HELD_AFTER_REFUSAL_SECONDS)  # the fault itself, not a wait for an outcome
        assert stack.api.pending_updates == 3  # handed out, never confirmed: Telegram still has them
    finally:
        await lock.release()

    for user, message_id in posted:
        video = await stack.video_reply(user.id, message_id, timeout=WAIT_SECONDS)
        assert video.sha256 == sha256_of(stack.site.clip("short"))
    await health_becomes(port, 200, within=WAIT_SECONDS)
    for user, _ in posted:
        assert len(stack.api.videos(user.id)) == 1
        assert texts.SEND_AGAIN_LATER not in [m.text for m in stack.api.messages(user.id)]


async def until_handed_out(stack: Stack, posted: list[tuple[User, int]]) -> None:
    """Until a getUpdates answer handed out every posted message (the bot has them in hand)."""

    def handed_out() -> set[tuple[int, int]]:
        return {
            (u["message"]["chat"]["id"], u["message"]["message_id"])
            for call in stack.api.calls_of("getUpdates")
            if isinstance(call.result, list)
            for u in call.result
            if "message" in u
        }

    await stack.api.wait_for(
        lambda: {(user.id, message_id) for user, message_id in posted} <= handed_out(), timeout=WAIT_SECONDS
    )


@pytest_asyncio.fixture
async def impatient(tmp_path: Path) -> AsyncIterator[Stack]:
    """A bot whose inbox gives an update's refused work only a few seconds (the default is an hour)."""
    async for stack in _stack(tmp_path, VIDRELAY_INTAKE_RETRY_SECONDS="3"):
        yield stack


def jobs_mentioning(data_dir: Path, needle: str) -> int:
    with sqlite3.connect(f"file:{data_dir / 'vidrelay.db'}?mode=ro", uri=True) as db:
        queued = db.execute("SELECT count(*) FROM jobs WHERE payload LIKE ?", (f"%{needle}%",)).fetchone()[0]
        failed = db.execute("SELECT count(*) FROM failed_jobs WHERE payload LIKE ?", (f"%{needle}%",))
        return int(queued) + int(failed.fetchone()[0])


async def test_a_lock_that_outlasts_the_intake_budget_costs_no_link_and_asks_nobody_again(
    impatient: Stack,
) -> None:
    """The budget is for work the store refused after it kept the update; an update it never kept
    was never confirmed, so it waits with Telegram however long the lock holds."""
    stack = impatient
    lock = FileLock(stack.root / "data" / "vidrelay.db")
    await lock.hold()
    try:
        posted = post_from_three_chats(stack, "short")
        await until_handed_out(stack, posted)
        await until_logged(stack.bot, "not kept, so not confirmed to Telegram")
        await asyncio.sleep(HELD_AFTER_REFUSAL_SECONDS)  # the fault itself, past the 3 s budget
    finally:
        await lock.release()

    for user, message_id in posted:
        video = await stack.video_reply(user.id, message_id, timeout=WAIT_SECONDS)
        assert video.sha256 == sha256_of(stack.site.clip("short"))
    for user, _ in posted:
        assert len(stack.api.videos(user.id)) == 1
        assert texts.SEND_AGAIN_LATER not in [m.text for m in stack.api.messages(user.id)]


async def test_a_store_file_of_random_bytes_refuses_the_start_with_one_line_and_is_left_intact(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    store = data / "vidrelay.db"
    store.write_bytes(os.urandom(64 * 1024))
    before = hashlib.sha256(store.read_bytes()).hexdigest()
    async with VideoServer(CLIPS_DIR) as site, FakeBotApi() as api:
        bot = BotProcess(bot_environment(api, data, sites=[site]), tmp_path / "bot.log")
        await bot.spawn()
        assert await bot.wait(timeout=60) == 2

    [line] = bot.log().splitlines()
    assert line == f"vidrelay: {store} is not an SQLite database"
    assert hashlib.sha256(store.read_bytes()).hexdigest() == before
    assert not (data / "vidrelay.db-wal").exists()
    assert not (data / "vidrelay.db-journal").exists()


async def test_a_store_file_with_scribbled_table_pages_refuses_the_start_with_one_line_and_is_left_intact(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    store = data / "vidrelay.db"
    await filled_and_closed(store)
    scribble_table_pages(store)
    before = hashlib.sha256(store.read_bytes()).hexdigest()
    async with VideoServer(CLIPS_DIR) as site, FakeBotApi() as api:
        bot = BotProcess(bot_environment(api, data, sites=[site]), tmp_path / "bot.log")
        await bot.spawn()
        assert await bot.wait(timeout=60) == 2

    [line] = bot.log().splitlines()
    assert line.startswith(f"vidrelay: {store} is damaged (")
    assert line.endswith("): restore a backup (vidrelay restore)")
    assert hashlib.sha256(store.read_bytes()).hexdigest() == before
    assert not (data / "vidrelay.db-wal").exists()


async def test_a_link_queued_once_the_lock_is_gone_says_so_at_once_while_the_worker_is_busy(
    fresh: Stack,
) -> None:
    stack = fresh
    first, second = new_user(), new_user()
    stack.site.set_route("/faults/busy.mp4", Trickle(stack.site.clip("medium").read_bytes(), seconds=30))
    stack.api.send_text(Chat.private(first), first, stack.site.url("/faults/busy.mp4"))
    await download_in_flight(stack, "/faults/busy.mp4")  # the one worker is taken for a while
    lock = FileLock(stack.root / "data" / "vidrelay.db")
    await lock.hold()
    try:
        url = stack.site.url(f"/clips/short.mp4?user={second.id}")
        message_id = stack.api.send_text(Chat.private(second), second, url)
        await until_logged(stack.bot, "not kept, so not confirmed to Telegram")
    finally:
        await lock.release()

    log = await stack.log_until(second.id, message_id, lambda text: text.startswith("⏳"))
    assert stack.api.videos(first.id) == []  # said while the worker was still busy, not after

    video = await stack.video_reply(second.id, message_id, timeout=WAIT_SECONDS)
    assert video.sha256 == sha256_of(stack.site.clip("short"))
    assert [m.message_id for m in stack.api.messages(second.id) if m.video is None] == [log.message_id]
    assert len(stack.api.videos(second.id)) == 1
