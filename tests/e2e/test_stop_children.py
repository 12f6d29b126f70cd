"""A stopped bot leaves no yt-dlp behind: it stops its warm fork server and waits for it (the
server kills the runs forked from it), instead of leaving it to notice the bot's end, orphaned
to whoever reaps it later."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from testkit.telegram import Chat
from testkit.video_site import Trickle
from tests.e2e.conftest import WAIT_SECONDS, Stack, _stack, new_user
from tests.support.procs import alive, command_line, descendants

pytestmark = pytest.mark.slow

SERVER_TITLE = "vidrelay-ytdlp-forkserver"
"""What a fork server shows as its command line."""
_PR_SET_CHILD_SUBREAPER = 36


@contextlib.contextmanager
def orphans_come_to_us() -> Iterator[None]:
    """While it lasts, a process below this one whose parent ends becomes this one's child (not
    init's): `os.waitpid` then tells whether the bot left one behind, alive or not yet reaped."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    if prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        pytest.skip(f"prctl(PR_SET_CHILD_SUBREAPER): errno {ctypes.get_errno()}")
    try:
        yield
    finally:
        prctl(_PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def adopted(pid: int) -> bool:
    """`pid` became our child (its parent ended before reaping it); it is gone now."""
    try:
        reaped, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False  # not ours: its parent reaped it (or it never was below us)
    if reaped == 0:  # ours and still running
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return True


@pytest_asyncio.fixture
async def impatient(tmp_path: Path) -> AsyncIterator[Stack]:
    """A bot whose in-flight jobs get one second after SIGTERM."""
    with orphans_come_to_us():
        async for stack in _stack(tmp_path, VIDRELAY_SHUTDOWN_GRACE_SECONDS="1", VIDRELAY_YTDLP_WARM="true"):
            yield stack


async def forked_download_running(stack: Stack, path: str) -> tuple[list[int], list[int]]:
    """(the bot's fork servers, the runs below them) once the body of `path` is downloading."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        records = [r for r in stack.site.requests if r.path == path]
        below = descendants(stack.bot.pid)
        servers = [pid for pid in below if SERVER_TITLE in command_line(pid)]
        runs = [pid for pid in below if pid not in servers]
        if len(records) >= 2 and records[-1].finished is None and servers and runs:
            return servers, runs
        assert time.monotonic() < deadline, f"no forked download: {[command_line(p) for p in below]}"
        await asyncio.sleep(0.05)


async def test_sigterm_stops_the_warm_yt_dlp_server_and_its_runs_before_the_bot_exits(
    impatient: Stack,
) -> None:
    stack = impatient
    user = new_user()
    path = "/e2e/stopped-mid-download.mp4"
    stack.site.set_route(path, Trickle(stack.site.clip("medium").read_bytes(), seconds=60))
    stack.api.send_text(Chat.private(user), user, stack.site.url(path))
    servers, runs = await forked_download_running(stack, path)

    assert await stack.bot.terminate() == 0

    assert [pid for pid in servers if adopted(pid)] == []  # the bot itself waited for them
    deadline = time.monotonic() + WAIT_SECONDS  # a killed run may take a moment to be gone
    while left := [pid for pid in runs if alive(pid)]:
        assert time.monotonic() < deadline, f"yt-dlp runs outlived the bot: {left}"
        await asyncio.sleep(0.05)
