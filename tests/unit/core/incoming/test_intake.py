"""A message with links becomes jobs: one per distinct allowed URL, capped per user."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from core.incoming.intake.announce import Announcements
from core.incoming.intake.links import LinkIntake
from core.incoming.intake.message import IncomingMessage
from core.requests.job_names import DOWNLOAD_VIDEO
from core.urls import Entity
from ports.messenger import MessengerError
from tests.support.clock import VirtualClock, settle
from tests.support.downloader import video
from tests.support.intake import intake_over
from tests.support.world import PRIVATE_CHAT, USER, World


def message(text: str, message_id: int = 1, chat_id: int = PRIVATE_CHAT) -> IncomingMessage:
    entities, start = [], 0
    for word in text.split(" "):
        if "." in word or "/" in word:
            entities.append(Entity("url", start, len(word)))
        start += len(word) + 1
    chat_type = "private" if chat_id > 0 else "group"
    return IncomingMessage(chat_id, chat_type, message_id, USER, text, entities)


async def test_each_distinct_url_becomes_one_job(tmp_path: Path, clock: VirtualClock) -> None:
    world = World(clock, tmp_path)
    report = await world.intake.accept(message("a.example/1 b.example/2 a.example/1"))
    assert report.accepted == ["https://a.example/1", "https://b.example/2"]
    jobs = await world.store.list_jobs()
    assert [(j.name, j.payload["url"], j.owner_id, j.key) for j in jobs] == [
        ("download_video", "https://a.example/1", USER, "a.example"),
        ("download_video", "https://b.example/2", USER, "b.example"),
    ]


async def test_an_edit_runs_only_urls_new_to_the_message(tmp_path: Path, clock: VirtualClock) -> None:
    world = World(clock, tmp_path)
    await world.intake.accept(message("a.example/1", message_id=9))
    report = await world.intake.accept(message("a.example/1 c.example/3", message_id=9))
    assert report.accepted == ["https://c.example/3"]
    assert report.already_handled == ["https://a.example/1"]


async def test_the_per_user_cap_stops_intake_with_a_reason(tmp_path: Path, clock: VirtualClock) -> None:
    world = World(clock, tmp_path, VIDRELAY_MAX_QUEUED_PER_USER="2")
    report = await world.intake.accept(message("a.example/1 a.example/2 a.example/3"))
    assert report.accepted == ["https://a.example/1", "https://a.example/2"]
    assert report.queue_full


async def test_refused_urls_are_reported_and_never_queued(tmp_path: Path, clock: VirtualClock) -> None:
    world = World(clock, tmp_path)
    text = "ftp://a.example/x internal.test/admin localhost/x good.example/v"
    report = await world.intake.accept(message(text))
    assert report.accepted == ["https://good.example/v"]
    assert [url for url, _ in report.refused] == [
        "ftp://a.example/x",
        "https://internal.test/admin",
        "https://localhost/x",
    ]
    assert len(await world.store.list_jobs()) == 1


async def test_chats_outside_the_allowlist_are_told_once_an_hour_and_not_served(
    tmp_path: Path, clock: VirtualClock, caplog: pytest.LogCaptureFixture
) -> None:
    world = World(clock, tmp_path, VIDRELAY_ALLOWED_CHAT_IDS="-42")
    caplog.set_level(logging.INFO, "vidrelay.intake")
    ignored = await world.intake.accept(message("a.example/1"))
    again = await world.intake.accept(message("a.example/2"))
    chatter = await world.intake.accept(IncomingMessage(1, "private", 9, USER, "hello there", []))
    allowed = await world.intake.accept(message("a.example/1", chat_id=-42))
    await clock.advance(3600)
    an_hour_later = await world.intake.accept(message("a.example/3"))

    assert (ignored.accepted, allowed.accepted) == ([], ["https://a.example/1"])
    assert [r.tell_not_allowed for r in (ignored, again, chatter, allowed, an_hour_later)] == [
        True,
        False,  # within the hour: silence
        False,  # no link, no answer
        False,
        True,
    ]
    told = [r for r in caplog.records if "off VIDRELAY_ALLOWED_CHAT_IDS" in r.getMessage()]
    assert len(told) == 2
    assert [j.payload["chat_id"] for j in await world.store.list_jobs()] == [-42]


async def test_a_message_without_links_makes_nothing(tmp_path: Path, clock: VirtualClock) -> None:
    world = World(clock, tmp_path)
    report = await world.intake.accept(IncomingMessage(1, "private", 1, USER, "hello there", []))
    assert (report.accepted, report.refused, report.queue_full) == ([], [], False)
    assert await world.store.list_jobs() == []


async def test_an_accepted_private_link_is_answered_before_a_worker_runs_it(
    tmp_path: Path, clock: VirtualClock
) -> None:
    world = World(clock, tmp_path)  # no worker runs yet: the log message cannot come from one
    url = "https://a.example/1"
    await world.intake.accept(message("a.example/1", message_id=5))
    await settle()
    [log] = world.messenger.chat(PRIVATE_CHAT)
    assert (log.reply_to, log.text) == (5, "🧐 <b>Scraping</b> URL...")

    world.downloader.serve(url, video(url))
    world.downloader.slow["v1"] = 10.0
    await world.engine.start()
    await settle()
    [job] = [j for j in await world.store.list_jobs() if j.name == DOWNLOAD_VIDEO]  # no periodic job
    assert job.payload["log"]["message_ids"] == [log.message_id]  # the worker's first save
    await world.idle()
    await world.engine.stop(grace_seconds=0)
    assert [m.message_id for m in world.messenger.chat(PRIVATE_CHAT) if m.video is None] == [log.message_id]


async def test_a_link_behind_busy_workers_says_how_many_are_ahead(
    tmp_path: Path, clock: VirtualClock
) -> None:
    world = World(clock, tmp_path, VIDRELAY_JOB_CONCURRENCY="1", VIDRELAY_MAX_QUEUED_PER_USER="5")
    await world.intake.accept(message("a.example/1 a.example/2 a.example/3"))
    await settle()
    assert [m.text for m in world.messenger.chat(PRIVATE_CHAT)] == [
        "🧐 <b>Scraping</b> URL...",
        "⏳ <b>Queued</b> — 1 ahead of you",
        "⏳ <b>Queued</b> — 2 ahead of you",
    ]


async def test_a_group_link_gets_no_log_message(tmp_path: Path, clock: VirtualClock) -> None:
    world = World(clock, tmp_path)
    report = await world.intake.accept(message("a.example/1", chat_id=-2002))
    await settle()
    assert report.accepted == ["https://a.example/1"]
    assert world.messenger.calls == []


async def test_on_a_shared_store_the_log_message_id_is_in_the_job_before_a_worker_may_claim_it(
    tmp_path: Path, clock: VirtualClock
) -> None:
    """The worker may be another process: it finds the ingest's message in the job's payload and
    carries on in it (one message per link), instead of posting one of its own."""
    world = World(clock, tmp_path)
    intake = on_a_shared_store(world)

    await intake.accept(message("a.example/1", message_id=5))

    [log] = world.messenger.chat(PRIVATE_CHAT)
    assert (log.reply_to, log.text) == (5, "🧐 <b>Scraping</b> URL...")
    [job] = await world.store.list_jobs()
    assert job.available_at == clock.now()  # let go at once, not at the end of its hold
    assert job.payload["log"] == {"message_ids": [log.message_id], "text": "", "delivered": [log.text]}
    world.downloader.serve("https://a.example/1", video("https://a.example/1"))
    await world.engine.start()
    await world.idle()
    await world.engine.stop(grace_seconds=0)
    assert [m.message_id for m in world.messenger.chat(PRIVATE_CHAT) if m.video is None] == [log.message_id]


async def test_on_a_shared_store_a_job_whose_message_did_not_go_out_is_let_go_to_post_its_own(
    tmp_path: Path, clock: VirtualClock
) -> None:
    world = World(clock, tmp_path)
    world.messenger.fail_next("send_text", MessengerError("Bad Gateway", 502))
    intake = on_a_shared_store(world)

    await intake.accept(message("a.example/1", message_id=5))

    [job] = await world.store.list_jobs()
    assert job.available_at == clock.now()  # let go without a message: its worker posts one
    assert job.payload["log"] == {}
    assert world.messenger.chat(PRIVATE_CHAT) == []


def on_a_shared_store(world: World) -> LinkIntake:
    """The intake as an ingest on PostgreSQL has it: a link's job is held back for its message."""
    announcements = Announcements(
        world.container.log_views(),
        world.store,
        worker_slots=3,
        messenger=world.messenger,
        clock=world.clock,
        languages=world.container.languages(),
        held_back=world.store,
    )
    return intake_over(world, announcements=announcements)
