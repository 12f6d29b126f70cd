"""Start-up that explains itself: a Telegram that is down for a moment, a token it rejects, a
machine without ffmpeg — each met with a line an operator can act on, never a traceback."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest

from testkit.bot_process import BotProcess, bot_environment
from testkit.telegram import Chat, FakeBotApi
from testkit.video_site import VideoServer
from tests.e2e.conftest import CLIPS_DIR, WAIT_SECONDS, new_user, sha256_of, until_logged

pytestmark = pytest.mark.slow

OUTAGE_SECONDS = 5.0


async def test_a_bot_api_that_refuses_connections_at_first_is_waited_for_then_polled(tmp_path: Path) -> None:
    async with VideoServer(CLIPS_DIR) as site:
        api = FakeBotApi()
        await api.start()
        env = bot_environment(api, tmp_path / "data")
        await api.stop()  # nothing listens on its port now: every connection is refused
        bot = BotProcess(env, tmp_path / "bot.log")
        try:
            spawned = time.monotonic()
            await bot.spawn()
            # The outage lasts 5 s from the start, and at least until the bot met it (a loaded
            # machine may take longer than that to import and reach its first getMe).
            await until_logged(bot, "Telegram is not answering (try 1)")
            await asyncio.sleep(max(0.0, spawned + OUTAGE_SECONDS - time.monotonic()))
            assert bot.running, bot.log()
            await api.start()
            await api.wait_for(lambda: api.polling, timeout=WAIT_SECONDS)
            user = new_user()
            message_id = api.send_text(Chat.private(user), user, site.url("/clips/short.mp4"))
            video = await api.wait_for(
                lambda: next((v for v in api.videos(user.id) if v.reply_to == message_id), None),
                timeout=WAIT_SECONDS,
            )
            assert video.sha256 == sha256_of(site.clip("short"))
            assert await bot.terminate() == 0
        finally:
            await bot.close()
            await api.stop()
    tries = [line for line in bot.log().splitlines() if "Telegram is not answering" in line]
    assert tries, bot.log()  # one line per try
    assert all("Cannot connect to host" in line for line in tries)
    assert "Traceback" not in bot.log()


async def test_a_token_telegram_rejects_exits_2_with_one_line(tmp_path: Path) -> None:
    async with FakeBotApi() as api:
        env = bot_environment(api, tmp_path / "data", VIDRELAY_BOT_TOKEN="42:not-the-token-the-api-knows")
        bot = BotProcess(env, tmp_path / "bot.log")
        await bot.spawn()
        assert await bot.wait(timeout=60) == 2
    lines = bot.log().splitlines()
    assert len(lines) == 1, bot.log()
    assert "Telegram rejected VIDRELAY_BOT_TOKEN (401 Unauthorized)" in lines[0]
    assert "42:not-the-token" not in lines[0]  # a secret never reaches the log


@pytest.mark.parametrize("command", ["run", "demo"])
def test_without_ffmpeg_on_path_the_command_exits_2_naming_what_is_missing(
    tmp_path: Path, command: str
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {"PATH": str(empty), "VIDRELAY_BOT_TOKEN": "42:token", "VIDRELAY_DATA_DIR": str(tmp_path / "data")}
    ran = subprocess.run(
        [sys.executable, "-m", "entrypoints.cli", command],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 2
    assert ran.stdout == ""
    assert ran.stderr.splitlines() == [
        "vidrelay: ffmpeg and ffprobe are not on PATH: install the `ffmpeg` package "
        "(Debian/Ubuntu: apt install ffmpeg)"
    ]
