"""Sites that refuse the server, with the real bot process: each verdict is one clear message to
the user after one attempt, one hint to the operator however many links met it, and a metric.

Real sites cannot be reached from here, so the bot runs a yt-dlp stand-in installed where the
updater puts releases: for a link under /verdicts/stub/<verdict>/ it prints the real yt-dlp's
ERROR line for that verdict (the reference wordings of tests/unit/core/fixtures/ytdlp_errors.json)
and fails as yt-dlp does; every other run is the real yt-dlp. Cloudflare's bot check needs no
stand-in: the local site serves one (/verdicts/cloudflare) and the real yt-dlp meets it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from core.texts.reasons import site_verdict
from testkit.loopback import free_port
from testkit.telegram import Chat
from tests.e2e.conftest import WAIT_SECONDS, Stack, _stack, get, new_user
from tests.support.integration import install_fake_ytdlp, switch_ytdlp
from tests.support.prometheus_text import values

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]

FIXTURE = Path(__file__).parents[1] / "unit" / "core" / "fixtures" / "ytdlp_errors.json"
VERDICTS = ("bot_check", "sign_in", "age_gate", "geo_blocked", "private", "removed", "members_only")
STUB_VERSION = "2099.01.01-verdicts"
STUB_MAIN = """
import json, os, sys

LINES = json.loads({lines!r})
url = sys.argv[-1]
for verdict, line in LINES.items():
    if f"/verdicts/stub/{{verdict}}/" in url:
        print(line, file=sys.stderr)
        sys.exit(1)
# Anything else is the real yt-dlp's to do (the packaged one: without this install on the path).
env = {{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}}
os.execve(sys.executable, [sys.executable, "-m", "yt_dlp", *sys.argv[1:]], env)
"""


def real_wordings() -> dict[str, str]:
    """The first reference line of each verdict: yt-dlp's wording for what a site answered."""
    lines: dict[str, str] = {}
    for case in json.loads(FIXTURE.read_text(encoding="utf-8"))["lines"]:
        if case["source"] == "reference" and case["kind"] in VERDICTS:
            lines.setdefault(case["kind"], case["line"])
    assert set(lines) == set(VERDICTS)
    return lines


def site_of(line: str) -> str:
    """The extractor of an ERROR line: "youtube" for "ERROR: [youtube:tab] …"."""
    return line.removeprefix("ERROR: [").split("]", 1)[0].split(":", 1)[0]


async def verdict_stack(root: Path, **env: str) -> AsyncIterator[Stack]:
    data = root / "data"
    install_fake_ytdlp(data, STUB_VERSION, STUB_MAIN.format(lines=json.dumps(real_wordings())))
    switch_ytdlp(data, STUB_VERSION)
    async for stack in _stack(root, VIDRELAY_METRICS_PORT=str(free_port()), **env):
        yield stack


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sites(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stack]:
    async for stack in verdict_stack(tmp_path_factory.mktemp("verdicts")):
        yield stack


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def with_cookies(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stack]:
    root = tmp_path_factory.mktemp("verdicts-cookies")
    cookies = root / "cookies.txt"
    cookies.write_text("# Netscape HTTP Cookie File\n.youtube.com\tTRUE\t/\tTRUE\t0\tSID\texpired\n")
    async for stack in verdict_stack(root, VIDRELAY_YTDLP_COOKIES_FILE=str(cookies)):
        yield stack


async def failed_once(stack: Stack, url: str) -> str:
    """Post `url` in a new private chat; the chat's one message once it ended in 💥 and the job is
    gone, after checking that the link took one attempt."""
    user = new_user()
    message_id = stack.api.send_text(Chat.private(user), user, url)
    log = await stack.log_until(user.id, message_id, lambda t: "💥" in t)
    await stack.until_no_jobs()
    assert len(stack.api.messages(user.id)) == 1
    [started] = [
        line
        for line in stack.bot.log().splitlines()
        if 'msg="job started"' in line and f" chat_id={user.id} " in f"{line} "
    ]
    assert " attempt=1" in started
    return log.text or ""


async def refusals_counted(stack: Stack, verdict: str, site: str, count: int) -> None:
    """Until /metrics counts `count` refusals: the last one was heard (and any hint written)."""
    port = stack.bot._env["VIDRELAY_METRICS_PORT"]
    name = f'vidrelay_site_refusals_total{{site="{site}",verdict="{verdict}"}}'
    deadline = time.monotonic() + WAIT_SECONDS
    while (seen := await refusals_of(f"http://127.0.0.1:{port}/metrics", name)) != count:
        assert time.monotonic() < deadline, f"{name} stayed at {seen}"
        await asyncio.sleep(0.1)


async def refusals_of(url: str, name: str) -> float:
    _, text = await get(url)
    return values(text).get(name, 0.0)


def hints(stack: Stack, verdict: str) -> list[str]:
    return [
        line
        for line in stack.bot.log().splitlines()
        if "logger=vidrelay.sites" in line and f"verdict={verdict} " in line
    ]


@pytest.mark.parametrize("verdict", VERDICTS)
async def test_each_site_verdict_is_one_message_after_one_attempt_and_one_operator_hint(
    sites: Stack, verdict: str
) -> None:
    for n in (1, 2):
        text = await failed_once(sites, sites.site.url(f"/verdicts/stub/{verdict}/{n}"))
        assert text.endswith(f"💥 Download failed: {site_verdict(verdict)}"), text
        assert "⚠️" not in text
        assert "--cookies" not in text

    await refusals_counted(sites, verdict, site_of(real_wordings()[verdict]), 2)
    [hint] = hints(sites, verdict)
    assert "refused the server a video" in hint
    if verdict in ("bot_check", "sign_in", "age_gate", "members_only"):
        assert "VIDRELAY_YTDLP_COOKIES_FILE" in hint


async def test_cloudflares_bot_check_met_by_the_real_yt_dlp_is_a_bot_check(sites: Stack) -> None:
    for n in (1, 2):
        text = await failed_once(sites, sites.site.url(f"/verdicts/cloudflare?n={n}"))
        assert text.endswith(f"💥 Download failed: {site_verdict('bot_check')}"), text

    await refusals_counted(sites, "bot_check", "generic", 2)
    [hint] = [h for h in hints(sites, "bot_check") if "site=generic" in h]
    assert "level=error" in hint
    assert "Cloudflare anti-bot challenge" in hint  # what yt-dlp said, for the operator only


async def test_cookies_that_stopped_working_are_reported_once_not_per_link(with_cookies: Stack) -> None:
    stack = with_cookies
    for path in ("/verdicts/stub/bot_check/1", "/verdicts/stub/age_gate/1", "/verdicts/cloudflare"):
        await failed_once(stack, stack.site.url(path))

    await refusals_counted(stack, "bot_check", "youtube", 1)
    await refusals_counted(stack, "age_gate", "youtube", 1)
    await refusals_counted(stack, "bot_check", "generic", 1)
    told = [line for line in stack.bot.log().splitlines() if "logger=vidrelay.sites" in line]
    [cookies] = told
    assert "level=error" in cookies
    assert "the cookies file (VIDRELAY_YTDLP_COOKIES_FILE) did not get past youtube's bot check" in cookies
    assert "cookies.txt" not in stack.bot.log()  # the file's path stays private
