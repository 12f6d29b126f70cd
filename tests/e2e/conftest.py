"""The bot as a real process against our fake Bot API and a local video site, on 127.0.0.1.

Starting a bot costs seconds (aiogram's import), so one bot serves every module whose tests do
not need a process of their own; every test then uses its own chats and paths.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import pytest
import pytest_asyncio

from testkit.bot_process import BotProcess, bot_environment
from testkit.telegram import Chat, FakeBotApi, FloodLimits, StoredMessage, User, VideoRecord
from testkit.video_site import VideoServer

CLIPS_DIR = Path(tempfile.gettempdir()) / "vidrelay-test-clips"
VIDRELAY = Path(sys.executable).with_name("vidrelay")
WAIT_SECONDS = 60.0
_ids = itertools.count(1)
ADMIN = User(4242, "Admin", username="admin")
INLINE_CACHE = Chat.supergroup(-1009999, "Inline cache")


def new_user(language_code: str | None = "en") -> User:
    """A user whose Telegram app speaks `language_code` (Telegram sends it with every update)."""
    n = next(_ids)
    return User(5000 + n, f"User{n}", username=f"user{n}", language_code=language_code)


def new_group() -> Chat:
    return Chat.supergroup(-1001000000000 - next(_ids), "Test group")


async def until_logged(bot: BotProcess, text: str) -> None:
    """Wait for the bot to log `text` (the log file is the only news a child process gives)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while text not in bot.log():
        assert bot.running, bot.log()
        assert time.monotonic() < deadline, f"the bot never logged {text!r}:\n{bot.log()}"
        await asyncio.sleep(0.1)


async def get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class Stack:
    api: FakeBotApi
    site: VideoServer
    root: Path
    bot: BotProcess
    webhook: bool = False
    """The bot receives updates by webhook (`run --webhook`), which the test posts itself."""

    def new_bot(self, **env: str) -> BotProcess:
        """Another bot process on the same data folder (a restart), with these settings changed."""
        n = next(_ids)
        self.bot = BotProcess(
            bot_environment(self.api, self.root / "data", sites=[self.site], **env),
            self.root / f"bot-{n}.log",
            webhook=self.webhook,
        )
        return self.bot

    async def video_reply(self, chat_id: int, message_id: int, timeout: float = WAIT_SECONDS) -> VideoRecord:
        return await self.api.wait_for(
            lambda: next((v for v in self.api.videos(chat_id) if v.reply_to == message_id), None),
            timeout=timeout,
        )

    async def jobs_left(self) -> int:
        """The jobs still queued or running, as `vidrelay jobs list` reads them from the store."""
        proc = await asyncio.create_subprocess_exec(
            str(VIDRELAY),
            *("jobs", "list", "--json"),
            env=self.bot._env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        out, _ = await proc.communicate()
        assert proc.returncode == 0
        return len([line for line in out.decode().splitlines() if line.strip().startswith("{")])

    async def until_no_jobs(self) -> None:
        """Until the store holds no job: whatever the bot was asked to do is done."""
        for _ in range(600):
            if await self.jobs_left() == 0:
                return
            await asyncio.sleep(0.1)
        raise AssertionError("the job never finished")

    def log_message(self, chat_id: int, message_id: int) -> StoredMessage | None:
        return next(
            (m for m in self.api.messages(chat_id) if m.reply_to == message_id and m.video is None), None
        )

    async def log_until(
        self, chat_id: int, message_id: int, done: Callable[[str], bool], timeout: float = WAIT_SECONDS
    ) -> StoredMessage:
        def finished() -> StoredMessage | None:
            log = self.log_message(chat_id, message_id)
            return log if log is not None and done(log.text or "") else None

        return await self.api.wait_for(finished, timeout=timeout)


async def _stack(
    root: Path, flood_limits: FloodLimits | None = None, *, webhook: bool = False, **env: str
) -> AsyncIterator[Stack]:
    async with (
        VideoServer(CLIPS_DIR) as site,
        FakeBotApi(keep_uploads=root / "uploads", flood_limits=flood_limits) as api,
    ):
        stack = Stack(api, site, root, BotProcess({}, root / "unused.log"), webhook)
        await stack.new_bot(**env).start(api)
        try:
            yield stack
        finally:
            await stack.bot.close()
            _print_bot_logs(root)


def _print_bot_logs(root: Path) -> None:
    """Shown by pytest only when a test failed: what the bot said about it."""
    for log in sorted(root.glob("bot-*.log")):
        print(f"==== {log.name}\n{log.read_text(errors='replace')[-6000:]}")


@pytest_asyncio.fixture(scope="package", loop_scope="package")
async def shared(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stack]:
    """One bot for the tests of every module that asks for it (each test uses its own chats and
    paths, and judges what is shared, the inline cache chat and the bot's log, by what it added).
    Those modules run in the package's event loop, where this bot's servers live."""
    env = {"VIDRELAY_ADMIN_USER_IDS": str(ADMIN.id), "VIDRELAY_INLINE_CACHE_CHAT_ID": str(INLINE_CACHE.id)}
    async for stack in _stack(tmp_path_factory.mktemp("e2e"), **env):
        stack.api.add_chat(INLINE_CACHE)
        yield stack


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def limited(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stack]:
    """One bot for a module, against a Bot API that enforces Telegram's flood limits."""
    env = {"VIDRELAY_JOB_CONCURRENCY": "3", "VIDRELAY_YTDLP_CONCURRENCY": "3"}
    async for stack in _stack(tmp_path_factory.mktemp("e2e-limited"), FloodLimits(), **env):
        yield stack


@pytest_asyncio.fixture
async def fresh(tmp_path: Path) -> AsyncIterator[Stack]:
    """A bot of the test's own, on its own data folder: for crashes and restarts."""
    async for stack in _stack(tmp_path, VIDRELAY_JOB_CONCURRENCY="1"):
        yield stack
