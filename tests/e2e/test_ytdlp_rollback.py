"""A yt-dlp release that broke one extractor, met through the real updater: the bot installs it
from a local package index, three links in a row that its generic extractor cannot read roll it
back to the yt-dlp that read them before, the failed links are delivered on that one, and the next
release is installed when it comes out.

The releases are stand-ins built like the updater tests' fake releases (wheels on a local index).
The broken one fails a link under /broken/ as a broken extractor does ("Unable to extract", which
yt-dlp's users know), and hands every other run to the real yt-dlp — the one packaged with
vidrelay, which ran the generic extractor first and is what the rollback goes back to.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from adapters.ytdlp.updater import packaged_version
from testkit.loopback import free_port
from testkit.telegram import Chat, User
from testkit.video_site import video_page
from tests.e2e.conftest import WAIT_SECONDS, Stack, _stack, get, new_user, sha256_of, until_logged
from tests.support.prometheus_text import values
from tests.support.updater_index import V1, V2, publish, selected

pytestmark = pytest.mark.slow

RELEASE = """
import os, sys

args = sys.argv[1:]
if "--version" in args:
    print({printed!r})
    sys.exit(0)
if {breaks!r} and args and args[-1].startswith("http") and "/broken/" in args[-1]:
    print(
        "ERROR: [generic] Unable to extract video url; please report this issue on "
        "https://github.com/yt-dlp/yt-dlp/issues?q= , filling out the appropriate issue template. "
        "Confirm you are on the latest version using  yt-dlp -U",
        file=sys.stderr,
    )
    sys.exit(1)
env = {{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}}
os.execve(sys.executable, [sys.executable, "-m", "yt_dlp", *args], env)
"""
ROLLBACKS = 'vidrelay_ytdlp_rollbacks_total{extractor="generic"}'


def release(index: Path, version: str, printed: str, *, breaks: bool) -> None:
    publish(index, version, printed, main=RELEASE.format(printed=printed, breaks=breaks))


def post(stack: Stack, user: User, path: str) -> int:
    stack.site.set_route(path, video_page("/clips/short.mp4", f"The video of {path}"))
    return stack.api.send_text(Chat.private(user), user, stack.site.url(path))


async def rollbacks_counted(stack: Stack) -> float:
    _, text = await get(f"http://127.0.0.1:{stack.bot._env['VIDRELAY_METRICS_PORT']}/metrics")
    return values(text).get(ROLLBACKS, 0.0)


def said(stack: Stack, text: str) -> list[str]:
    return [line for line in stack.bot.log().splitlines() if text in line]


async def test_a_release_that_broke_an_extractor_is_rolled_back_and_its_failed_links_delivered(
    tmp_path: Path,
) -> None:
    index = tmp_path / "index"
    index.mkdir()
    packaged = packaged_version()
    env = {
        "VIDRELAY_YTDLP_UPDATE_INTERVAL_SECONDS": "2",
        "VIDRELAY_YTDLP_PIP_ARGS": f"--isolated --no-index --find-links {index}",
        "VIDRELAY_METRICS_PORT": str(free_port()),
    }
    async for stack in _stack(tmp_path, **env):
        user = new_user()
        # The packaged yt-dlp reads the site's pages with its generic extractor.
        first = post(stack, user, "/before/1.html")
        await stack.video_reply(user.id, first)

        release(index, V1, "2099.01.01", breaks=True)
        await until_logged(stack.bot, f"yt-dlp updated: {packaged} -> {V1}")
        failed = []
        for n in (1, 2):  # each fails on the broken release, for good ("Unable to extract")
            failed.append(post(stack, user, f"/broken/{n}.html"))
            await stack.log_until(user.id, failed[-1], lambda text: "💥" in text)
        assert await rollbacks_counted(stack) == 0
        third = post(stack, user, "/broken/3.html")

        for asked in (third, *failed):  # the third on the rollback at once, the others requeued
            video = await stack.video_reply(user.id, asked)
            assert video.sha256 == sha256_of(stack.site.clip("short"))
            await stack.log_until(user.id, asked, lambda text: "✅ Sent" in text)  # 💥 no more
        [warning] = said(stack, "yt-dlp rolled back")
        assert "level=warning" in warning
        assert f"extractor=generic from_version={V1} to_version={packaged}" in warning
        assert await rollbacks_counted(stack) == 1
        assert not (tmp_path / "data" / "ytdlp" / "current").exists()  # the packaged one runs
        assert said(stack, "requeued 2 job(s) of links that failed on a rolled-back yt-dlp")

        # The broken release is not installed again; the next one is, when it comes out.
        await until_logged(stack.bot, f"yt-dlp {V1} was rolled back: staying on {packaged}")
        release(index, V2, "2099.02.01", breaks=False)
        await until_logged(stack.bot, f"yt-dlp updated: {packaged} -> {V2}")
        assert selected(tmp_path / "data") == f"versions/{V2}"
        fixed = post(stack, user, "/broken/4.html")
        await stack.video_reply(user.id, fixed)
        assert len(said(stack, f"yt-dlp updated: {packaged} -> {V1}")) == 1
        await until_no_jobs(stack)


async def until_no_jobs(stack: Stack) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while await stack.jobs_left():
        assert time.monotonic() < deadline, "a job never finished"
        await asyncio.sleep(0.2)
