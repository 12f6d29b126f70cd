"""`vidrelay jobs retry` beside a running bot on SQLite: the requeued job is picked up at once,
not at the workers' next idle timeout; an id that is no dead letter is named."""

from __future__ import annotations

import json
import time

import pytest

from core.jobs.config import EngineConfig
from testkit.telegram import Chat
from testkit.video_site import Body
from tests.e2e.conftest import WAIT_SECONDS, Stack, new_user, sha256_of
from tests.support.cli import vidrelay

pytestmark = pytest.mark.slow

PICKUP_BOUND_SECONDS = EngineConfig().max_idle_seconds / 3
"""Well past the store's half-second watch of the file, and far below the idle workers' own
timeout: only a wake from the retry gets there in time."""


async def test_a_retried_dead_letter_is_claimed_at_once_and_an_unknown_id_is_named(fresh: Stack) -> None:
    stack = fresh
    env = stack.bot._env
    user, path = new_user(), "/e2e/retry/later.mp4"
    asked = stack.api.send_text(Chat.private(user), user, stack.site.url(path))  # 404 for now
    await stack.log_until(user.id, asked, lambda text: "💥" in text)
    listed = await vidrelay("jobs", "list", "--failed", "--json", env=env)
    [failed_id] = [json.loads(line)["id"] for line in listed.lines]
    stack.site.set_route(path, Body(stack.site.clip("short").read_bytes(), "video/mp4"))  # fixed

    unknown = await vidrelay("jobs", "retry", str(failed_id + 1000), env=env)
    assert unknown.code == 1
    assert unknown.stderr.splitlines() == [
        f"vidrelay: no failed job {failed_id + 1000}: `vidrelay jobs list --failed` shows the ids"
    ]
    retried = await vidrelay("jobs", "retry", str(failed_id), env=env)
    requeued_at = time.monotonic()
    assert retried.code == 0, retried.stderr
    assert retried.lines[0].startswith("requeued 1 job(s): ")

    first = await stack.api.wait_for(
        lambda: next((r for r in stack.site.requests if r.path == path and r.status == 200), None),
        timeout=WAIT_SECONDS,
    )
    assert first.started - requeued_at < PICKUP_BOUND_SECONDS
    video = await stack.video_reply(user.id, asked)
    assert video.sha256 == sha256_of(stack.site.clip("short"))
