"""Crashes, restarts and stops of the real bot process: an accepted link is never silently lost."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from testkit.telegram import Chat
from testkit.video_site import Body, Trickle
from tests.e2e.conftest import WAIT_SECONDS, Stack, new_user, sha256_of

pytestmark = pytest.mark.slow

# A yt-dlp that kills the bot for one link and is the real yt-dlp for every other: the one
# failure the real binary cannot produce on demand. Installed the way the updater installs a
# release, so the bot's locator picks it up at the next spawn.
POISON_YTDLP = """
import os, runpy, signal, sys

def bot_pid():
    # The bot is an ancestor: yt-dlp may run under a helper process of the bot.
    pid = os.getppid()
    while pid > 1:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            if b"entrypoints.cli" in cmdline.read():
                return pid
        with open(f"/proc/{pid}/stat") as stat:
            pid = int(stat.read().rsplit(")", 1)[1].split()[1])
    raise SystemExit("no bot among my ancestors")


if any("poison" in arg for arg in sys.argv[1:]):
    os.kill(bot_pid(), signal.SIGKILL)
    sys.exit(1)
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
for name in [m for m in sys.modules if m == "yt_dlp" or m.startswith("yt_dlp.")]:
    del sys.modules[name]
runpy.run_module("yt_dlp", run_name="__main__", alter_sys=True)
"""


def install_poison_ytdlp(data_dir: Path) -> None:
    package = data_dir / "ytdlp" / "versions" / "poison" / "yt_dlp"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(POISON_YTDLP)
    (data_dir / "ytdlp" / "current").symlink_to(package.parent)


def slow_clip(stack: Stack, path: str, seconds: float) -> str:
    stack.site.set_route(path, Trickle(stack.site.clip("medium").read_bytes(), seconds=seconds))
    return stack.site.url(path)


async def download_in_flight(stack: Stack, path: str) -> None:
    """The scrape has looked at the link (one request) and the body's download has begun (a second)."""

    def downloading() -> bool:
        records = [r for r in stack.site.requests if r.path == path]
        return len(records) >= 2 and records[-1].finished is None

    deadline = time.monotonic() + 60
    while not downloading():
        assert time.monotonic() < deadline, "the download never started"
        await asyncio.sleep(0.05)


def jobs_mentioning(data_dir: Path, needle: str) -> int:
    """Rows, queued or dead, whose payload mentions `needle` — read from the bot's own SQLite file."""
    with sqlite3.connect(f"file:{data_dir / 'vidrelay.db'}?mode=ro", uri=True) as db:
        queued = db.execute("SELECT count(*) FROM jobs WHERE payload LIKE ?", (f"%{needle}%",)).fetchone()[0]
        failed = db.execute(
            "SELECT count(*) FROM failed_jobs WHERE payload LIKE ?", (f"%{needle}%",)
        ).fetchone()[0]
    return int(queued) + int(failed)


async def test_sigkill_during_a_download_then_restart_delivers(fresh: Stack) -> None:
    user = new_user()
    url = slow_clip(fresh, "/e2e/killed.mp4", seconds=4)
    message_id = fresh.api.send_text(Chat.private(user), user, url)
    await download_in_flight(fresh, "/e2e/killed.mp4")
    assert await fresh.bot.kill() == -signal.SIGKILL
    assert fresh.api.videos(user.id) == []
    await fresh.new_bot(VIDRELAY_JOB_CONCURRENCY="1").start(fresh.api)
    video = await fresh.video_reply(user.id, message_id)
    assert video.sha256 == sha256_of(fresh.site.clip("medium"))


async def test_sigterm_lets_the_download_finish_exits_0_and_the_queue_waits_for_next_start(
    fresh: Stack,
) -> None:
    user = new_user()
    chat = Chat.private(user)
    in_flight = fresh.api.send_text(chat, user, slow_clip(fresh, "/e2e/graceful.mp4", seconds=3))
    fresh.site.set_route("/e2e/queued.mp4", Body(fresh.site.clip("short").read_bytes(), "video/mp4"))
    queued = fresh.api.send_text(chat, user, fresh.site.url("/e2e/queued.mp4"))
    await download_in_flight(fresh, "/e2e/graceful.mp4")
    assert await fresh.bot.terminate() == 0
    assert [v.reply_to for v in fresh.api.videos(user.id)] == [in_flight]
    assert fresh.site.hits("/e2e/queued.mp4") == 0
    await fresh.new_bot().start(fresh.api)
    video = await fresh.video_reply(user.id, queued)
    assert video.sha256 == sha256_of(fresh.site.clip("short"))


async def test_a_link_that_kills_the_bot_every_time_gives_up_after_3_attempts(fresh: Stack) -> None:
    install_poison_ytdlp(fresh.root / "data")
    user = new_user()
    chat = Chat.private(user)
    fresh.site.set_route("/e2e/poison.mp4", Body(fresh.site.clip("short").read_bytes(), "video/mp4"))
    poisoned = fresh.api.send_text(chat, user, fresh.site.url("/e2e/poison.mp4"))
    deaths = 0
    while deaths <= 3:
        code = await fresh.bot.wait(timeout=60) if deaths < 3 else None
        if code is None:
            break
        assert code == -signal.SIGKILL
        deaths += 1
        await fresh.new_bot(VIDRELAY_JOB_CONCURRENCY="1").start(fresh.api)
    assert deaths == 3
    log = await fresh.log_until(user.id, poisoned, lambda t: "💥" in t)
    assert "gave up after 3 attempts" in (log.text or "")
    fresh.site.set_route("/e2e/fine.mp4", Body(fresh.site.clip("short").read_bytes(), "video/mp4"))
    video = await fresh.video_reply(user.id, fresh.api.send_text(chat, user, fresh.site.url("/e2e/fine.mp4")))
    assert video.sha256 == sha256_of(fresh.site.clip("short"))
    assert fresh.bot.running


async def test_a_private_address_is_refused_before_any_request_reaches_it(fresh: Stack) -> None:
    await fresh.bot.terminate()
    await fresh.new_bot(VIDRELAY_PRIVATE_URL_ALLOWLIST="").start(fresh.api)
    user, group = new_user(), Chat.supergroup(-100777, "Quiet group")
    url = fresh.site.url("/clips/short.mp4")
    message_id = fresh.api.send_text(Chat.private(user), user, url)
    refusal = await fresh.api.wait_for(
        lambda: next((m for m in fresh.api.messages(user.id) if m.reply_to == message_id), None),
        timeout=WAIT_SECONDS,
    )
    assert (refusal.text or "").startswith("🚫 I can't fetch")
    fresh.api.send_text(group, user, url)
    sentinel = fresh.api.send_text(Chat.private(user), user, url + "?after-the-group")
    await fresh.api.wait_for(
        lambda: any(m.reply_to == sentinel for m in fresh.api.messages(user.id)), timeout=WAIT_SECONDS
    )
    assert fresh.site.hits("/clips/short.mp4") == 0
    assert fresh.api.messages(group.id) == []
    assert jobs_mentioning(fresh.root / "data", str(group.id)) == 0
