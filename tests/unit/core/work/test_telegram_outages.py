"""Telegram's outages cost no attempt, on virtual time: a video whose send cannot reach Telegram
(a 5xx, an answer that is not JSON, no connection) waits with a capped backoff, its attempt not
charged and its file kept, and goes out once Telegram answers; only an outage longer than
VIDRELAY_TELEGRAM_OUTAGE_HOURS fails the job."""

from __future__ import annotations

import itertools

import pytest

from core.work.delivery.outage import OUTAGE_KEY
from ports.jobs import Job
from ports.messenger import MessengerError
from tests.support.clock import VirtualClock
from tests.support.world import PRIVATE_CHAT, World

URL = "https://videos.example/watch/1"
HTML_502 = MessengerError("undecodable Bot API answer: Failed to deserialize object")
REFUSED = MessengerError("ClientConnectorError: Cannot connect to host api.telegram.org:443")


@pytest.fixture
def world_settings() -> dict[str, str]:
    return {"VIDRELAY_TELEGRAM_OUTAGE_HOURS": "1"}


async def unclaimed(world: World, clock: VirtualClock) -> Job:
    """The job's row, at a moment between two tries (no claim holds it)."""
    for _ in range(1000):
        [row] = await world.store.list_jobs()
        if row.claimed_by is None:
            return row
        await clock.advance(0.05)
    raise AssertionError("the job was never let go between its tries")


def sends(world: World) -> list[str]:
    return [call for call in world.messenger.calls if call == "send_video"]


async def test_a_send_that_cannot_reach_telegram_waits_uncharged_and_goes_out_once_it_answers(
    world: World, clock: VirtualClock
) -> None:
    world.downloader.serve(URL)
    for error in [HTML_502, REFUSED, HTML_502, MessengerError("Internal Server Error", 500), REFUSED]:
        world.messenger.fail_next("send_video", error)
    message_id = await world.post(URL)

    await clock.run_until(lambda: world.messenger.calls.count("send_video") == 3, limit_seconds=600)
    waiting = await unclaimed(world, clock)
    assert waiting.attempts == 0  # each try refunded: the outage is nobody's fault
    assert waiting.payload[OUTAGE_KEY]["tries"] == 3
    assert world.container.telegram_outages().problem() is not None  # /healthz says why
    await world.idle()

    [video] = [m for m in world.messenger.chat(PRIVATE_CHAT) if m.video]
    assert video.reply_to == message_id
    assert len(sends(world)) == 6
    assert (world.downloader.scrapes, world.downloader.downloads) == ([URL], ["v1"])  # the file was kept
    assert await world.store.list_failed() == []
    assert world.container.telegram_outages().problem() is None
    [log] = [m for m in world.messenger.chat(PRIVATE_CHAT) if m.video is None]
    assert "✅" in (log.text or "")


async def test_the_waits_between_tries_grow_to_about_a_minute_and_no_longer(
    world: World, clock: VirtualClock
) -> None:
    world.downloader.serve(URL)
    for _ in range(12):
        world.messenger.fail_next("send_video", REFUSED)
    await world.post(URL)
    tried_at: list[float] = []
    while len(tried_at) < 12:
        await clock.run_until(lambda: len(sends(world)) > len(tried_at), limit_seconds=600)
        tried_at.append(clock.now())

    gaps = [b - a for a, b in itertools.pairwise(tried_at)]
    assert min(gaps) < 10, gaps  # soon at first
    assert max(gaps) <= 80, gaps  # then never more than about a minute (jittered)
    assert sum(1 for gap in gaps if gap >= 40) >= 3, gaps  # which it reaches and stays at
    await world.idle()
    assert len([m for m in world.messenger.chat(PRIVATE_CHAT) if m.video]) == 1


async def test_an_outage_longer_than_the_budget_fails_the_job_with_its_reason(
    world: World, clock: VirtualClock
) -> None:
    world.downloader.serve(URL)
    for _ in range(200):
        world.messenger.fail_next("send_video", REFUSED)
    await world.post(URL)

    for _ in range(3 * 3600 // 60):
        if await world.store.list_failed():
            break
        await clock.advance(60)

    [failed] = await world.store.list_failed()
    assert failed.error.startswith("Telegram could not be reached for 1h")
    assert failed.attempts == 1  # one attempt was charged: the last, when the budget was spent
    assert failed.failed_at - failed.created_at >= 3600  # not before the budget was spent
