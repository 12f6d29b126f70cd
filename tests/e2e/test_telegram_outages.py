"""Telegram's outages cost no attempt, as a real bot process meets them: the fake Bot API goes
down at the first sendVideo — every call answered 502 with nginx's HTML page for 20 s, or no
connection accepted for 90 s — and comes back. The video arrives exactly once, the job is never
a dead letter, its log message ends on ✅, and /healthz says why meanwhile."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
import pytest_asyncio

from testkit.telegram import Chat
from tests.e2e.conftest import VIDRELAY, Stack, _stack, new_user, sha256_of
from tests.e2e.test_store_faults import free_port

pytestmark = pytest.mark.slow

AFTER_AN_OUTAGE_SECONDS = 240.0
"""The outage, then the wait of about a minute at most that follows it, with room to spare."""


@pytest_asyncio.fixture
async def watched(tmp_path: Path) -> AsyncIterator[tuple[Stack, int]]:
    port = free_port()
    async for stack in _stack(tmp_path, VIDRELAY_JOB_CONCURRENCY="1", VIDRELAY_METRICS_PORT=str(port)):
        yield stack, port


async def failed_jobs(stack: Stack) -> list[object]:
    """`vidrelay jobs list --failed --json`, as an operator reads it."""
    proc = await asyncio.create_subprocess_exec(
        str(VIDRELAY),
        *("jobs", "list", "--failed", "--json"),
        env=stack.bot._env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    out, _ = await proc.communicate()
    assert proc.returncode == 0
    return [json.loads(line) for line in out.decode().splitlines() if line.strip().startswith("{")]


async def health(port: int) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{port}/healthz") as answer:
        return answer.status, await answer.text()


async def delivered_once_through_the_outage(
    stack: Stack, port: int, *, down_seconds: float, refuse: bool
) -> None:
    user = new_user()
    outage = stack.api.go_down(from_method="sendVideo", seconds=down_seconds, refuse=refuse)
    message_id = stack.api.send_text(
        Chat.private(user), user, stack.site.url(f"/clips/short.mp4?down={user.id}")
    )

    await stack.api.wait_for(lambda: outage.began is not None, timeout=60)
    said: list[str] = []
    while not outage.over:
        status, text = await health(port)
        if status == 503:
            said.append(text)
        assert await failed_jobs(stack) == []  # never a dead letter, not even for a moment
        await asyncio.sleep(1.0)  # polls /healthz during the fault; it ends on its own clock
    video = await stack.video_reply(user.id, message_id, timeout=AFTER_AN_OUTAGE_SECONDS)

    assert video.sha256 == sha256_of(stack.site.clip("short"))
    await stack.until_no_jobs()
    assert [v.reply_to for v in stack.api.videos(user.id)] == [message_id]  # exactly once
    assert await failed_jobs(stack) == []
    log = await stack.log_until(user.id, message_id, lambda text: "✅" in text)
    assert "✅" in (log.text or "")
    assert any("Telegram unreachable" in text for text in said), said
    assert (await health(port))[0] == 200


async def test_telegram_answering_502_html_for_20_s_costs_no_attempt(watched: tuple[Stack, int]) -> None:
    stack, port = watched
    await delivered_once_through_the_outage(stack, port, down_seconds=20, refuse=False)


async def test_telegram_refusing_connections_for_90_s_costs_no_attempt(watched: tuple[Stack, int]) -> None:
    stack, port = watched
    await delivered_once_through_the_outage(stack, port, down_seconds=90, refuse=True)
