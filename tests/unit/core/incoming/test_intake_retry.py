"""A link the store refuses for now is never dropped: it keeps trying in the background, and only
once the budget is spent is its user asked to send it again (a reaction in groups)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from core import texts
from core.incoming.intake.announce import Announcements
from core.incoming.intake.limits import UserLinkLimits
from core.incoming.intake.links import LinkIntake
from core.incoming.intake.retries import EnqueueRetries
from ports.chat_settings import ChatSettings, ChatSettingsStore
from ports.errors import StoreError
from ports.jobs import Guard
from ports.json import Payload
from tests.support.clock import VirtualClock, settle
from tests.support.world import GROUP_CHAT, PRIVATE_CHAT, World
from tests.unit.core.incoming.test_intake import message

BUDGET = 60.0


class RefusingJobs:
    """The engine, behind a store that refuses writes while `refusing()` says so."""

    def __init__(self, world: World, refusing: Callable[[], bool]) -> None:
        self._engine = world.engine
        self._refusing = refusing
        self.tries = 0

    async def submit(
        self,
        name: str,
        payload: Payload,
        *,
        key: str = "",
        owner_id: int | None = None,
        requester: int | None = None,
        quick: bool = False,
        guard: Guard | None = None,
    ) -> int | None:
        self.tries += 1
        if self._refusing():
            raise StoreError("SQLite: database is locked")
        return await self._engine.submit(
            name, payload, key=key, owner_id=owner_id, requester=requester, quick=quick, guard=guard
        )


class RefusingChoices:
    """The chats' settings, behind a store that refuses reads while `refusing()` says so."""

    def __init__(self, world: World, refusing: Callable[[], bool]) -> None:
        self._store = world.store
        self._refusing = refusing

    async def chat_settings(self, chat_id: int) -> ChatSettings | None:
        if self._refusing():
            raise StoreError("PostgreSQL: connection lost")
        return await self._store.chat_settings(chat_id)

    async def save_chat_settings(self, chat_id: int, settings: ChatSettings, now: float) -> None:
        await self._store.save_chat_settings(chat_id, settings, now)

    async def move_chat_settings(self, from_chat_id: int, to_chat_id: int) -> bool:
        return await self._store.move_chat_settings(from_chat_id, to_chat_id)


def intake_over(world: World, jobs: RefusingJobs, choices: ChatSettingsStore | None = None) -> LinkIntake:
    announcements = Announcements(
        world.container.log_views(),
        world.store,
        clock=world.clock,
        worker_slots=world.settings.job_concurrency,
    )
    retries = EnqueueRetries(
        jobs=jobs,
        announce=announcements.accepted,
        messenger=world.messenger,
        clock=world.clock,
        random=lambda: 0.5,
        budget_seconds=BUDGET,
    )
    return LinkIntake(
        jobs=jobs,
        quota=world.store,
        guard=world.container.guard(),
        seen=world.store,
        clock=world.clock,
        choices=choices or world.store,
        retries=retries,
        announcements=announcements,
        limits=UserLinkLimits(quota=world.store, clock=world.clock, hourly=0, daily=0, exempt=()),
        known=world.container.known_videos(),
        max_queued_per_user=10,
    )


async def urls_queued(world: World) -> list[str]:
    return [str(j.payload["url"]) for j in await world.store.list_jobs()]


async def test_a_link_the_store_refuses_for_a_while_is_queued_once_it_takes_it(
    tmp_path: Path, clock: VirtualClock
) -> None:
    world = World(clock, tmp_path)
    back_at = clock.now() + 20
    jobs = RefusingJobs(world, lambda: clock.now() < back_at)
    intake = intake_over(world, jobs)

    report = await intake.accept(message("a.example/1"))
    assert (report.accepted, report.deferred) == ([], ["https://a.example/1"])

    await clock.advance(19)
    assert await urls_queued(world) == []
    await clock.advance(15)
    assert await urls_queued(world) == ["https://a.example/1"]
    tries = jobs.tries
    await clock.advance(BUDGET * 2)
    assert jobs.tries == tries  # once queued, it stops trying
    assert texts.send_again_later() not in world.messenger.texts(PRIVATE_CHAT)  # nobody was asked again


async def test_a_link_queued_by_the_background_tries_gets_its_log_message_then_and_one_video(
    tmp_path: Path, clock: VirtualClock
) -> None:
    world = World(clock, tmp_path)
    world.downloader.serve("https://a.example/1")
    back_at = clock.now() + 20
    intake = intake_over(world, RefusingJobs(world, lambda: clock.now() < back_at))
    await intake.accept(message("a.example/1", message_id=7))
    await clock.advance(19)
    assert world.messenger.chat(PRIVATE_CHAT) == []

    await clock.advance(15)  # queued now, and no worker runs yet: the log message says it is taken
    [log] = world.messenger.chat(PRIVATE_CHAT)
    assert (log.text, log.reply_to) == (texts.scraping(), 7)

    await world.engine.start()
    await world.idle()
    await world.engine.stop(grace_seconds=0)
    log_messages = [m for m in world.messenger.chat(PRIVATE_CHAT) if m.video is None]
    videos = [m for m in world.messenger.chat(PRIVATE_CHAT) if m.video is not None]
    assert [m.message_id for m in log_messages] == [log.message_id]  # the worker went on in it
    assert [v.reply_to for v in videos] == [7]


async def test_a_link_whose_chat_settings_cannot_be_read_waits_and_is_queued_as_the_chat_chose(
    tmp_path: Path, clock: VirtualClock
) -> None:
    world = World(clock, tmp_path)
    await world.store.save_chat_settings(PRIVATE_CHAT, ChatSettings(audio_only=True, max_height=480), 0.0)
    back_at = clock.now() + 20
    jobs = RefusingJobs(world, lambda: False)
    intake = intake_over(world, jobs, RefusingChoices(world, lambda: clock.now() < back_at))

    report = await intake.accept(message("a.example/1"))
    assert (report.accepted, report.deferred) == ([], ["https://a.example/1"])
    assert jobs.tries == 0  # not queued with settings the chat did not choose

    await clock.advance(30)
    [job] = await world.store.list_jobs()
    assert (job.payload["url"], job.payload["audio"], job.payload["max_height"]) == (
        "https://a.example/1",
        True,
        480,
    )


async def test_one_refusal_defers_the_rest_of_the_message_without_a_try_each(
    tmp_path: Path, clock: VirtualClock
) -> None:
    world = World(clock, tmp_path)
    back_at = clock.now() + 5
    jobs = RefusingJobs(world, lambda: clock.now() < back_at)
    intake = intake_over(world, jobs)

    report = await intake.accept(message("a.example/1 b.example/2 c.example/3"))

    assert jobs.tries == 1  # a busy store would cost a busy timeout per link tried here
    assert len(report.deferred) == 3
    await clock.advance(30)
    assert sorted(await urls_queued(world)) == [
        "https://a.example/1",
        "https://b.example/2",
        "https://c.example/3",
    ]


async def test_when_the_budget_is_spent_private_users_are_asked_to_resend_and_groups_get_a_reaction(
    tmp_path: Path, clock: VirtualClock
) -> None:
    world = World(clock, tmp_path)
    jobs = RefusingJobs(world, lambda: True)
    intake = intake_over(world, jobs)

    await intake.accept(message("a.example/1", message_id=7))
    await intake.accept(message("b.example/2", message_id=8, chat_id=GROUP_CHAT))
    await clock.advance(BUDGET - 1)
    assert world.messenger.chat(PRIVATE_CHAT) == []
    assert world.messenger.reactions == []

    await clock.advance(2)
    [reply] = world.messenger.chat(PRIVATE_CHAT)
    assert (reply.text, reply.reply_to) == (texts.send_again_later(), 7)
    assert world.messenger.reactions == [(GROUP_CHAT, 8, texts.BUSY_REACTION)]
    tries = jobs.tries
    await clock.advance(BUDGET)
    assert jobs.tries == tries
    assert await urls_queued(world) == []


async def test_stopping_with_links_still_waiting_asks_their_users_to_send_them_again(
    tmp_path: Path, clock: VirtualClock
) -> None:
    world = World(clock, tmp_path)
    intake = intake_over(world, RefusingJobs(world, lambda: True))
    await intake.accept(message("a.example/1", message_id=7))

    closing = asyncio.create_task(intake.close(grace_seconds=3))
    await clock.advance(5)
    await closing
    await settle()

    [reply] = world.messenger.chat(PRIVATE_CHAT)
    assert (reply.text, reply.reply_to) == (texts.send_again_later(), 7)
