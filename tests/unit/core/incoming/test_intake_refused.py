"""A link whose job the store refuses is not acknowledged: the intake raises UpdateNotKept (any
error of the enqueue, not only the store's own), the inbox handles the update again, and the
handled-URL guard keeps the links that did land from running twice. Only on the last try is a
link reported as not kept, for its sender to be asked again."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from core.incoming.intake.links import LinkIntake
from ports.caches import HandledUrls
from ports.chat_settings import ChatSettings, ChatSettingsStore
from ports.errors import StoreError
from ports.inbox import UpdateNotKept
from ports.jobs import Guard
from ports.json import Payload
from tests.support.clock import VirtualClock, settle
from tests.support.intake import intake_over as intake_with
from tests.support.world import PRIVATE_CHAT, World
from tests.unit.core.incoming.test_intake import message


class RefusingJobs:
    """The engine, behind a store whose enqueue fails while `refusing()` returns an error."""

    def __init__(self, world: World, refusing: Callable[[], BaseException | None]) -> None:
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
        available_at: float = 0.0,
    ) -> int | None:
        self.tries += 1
        error = self._refusing()
        if error is not None:
            raise error
        return await self._engine.submit(
            name,
            payload,
            key=key,
            owner_id=owner_id,
            requester=requester,
            quick=quick,
            guard=guard,
            available_at=available_at,
        )


class RefusingChoices:
    def __init__(self, world: World) -> None:
        self._store = world.store
        self.refusing = True

    async def chat_settings(self, chat_id: int) -> ChatSettings | None:
        if self.refusing:
            raise StoreError("PostgreSQL: connection lost")
        return await self._store.chat_settings(chat_id)

    async def save_chat_settings(self, chat_id: int, settings: ChatSettings, now: float) -> None:
        await self._store.save_chat_settings(chat_id, settings, now)

    async def move_chat_settings(self, from_chat_id: int, to_chat_id: int) -> bool:
        return await self._store.move_chat_settings(from_chat_id, to_chat_id)


class Forgetful:
    """The handled-message marks of a store that refuses every call."""

    async def remember_message(self, chat_id: int, message_id: int, now: float) -> None:
        raise StoreError("SQLite: database is locked")

    async def knows_message(self, chat_id: int, message_id: int) -> bool:
        raise StoreError("SQLite: database is locked")

    async def forget_handled(self, chat_id: int, message_id: int, url: str) -> None:
        raise StoreError("SQLite: database is locked")

    async def sweep_handled(self, created_before: float) -> int:
        raise StoreError("SQLite: database is locked")


def intake_over(
    world: World,
    jobs: RefusingJobs,
    choices: ChatSettingsStore | None = None,
    seen: HandledUrls | None = None,
) -> LinkIntake:
    return intake_with(world, jobs=jobs, choices=choices or world.store, seen=seen or world.store)


async def urls_queued(world: World) -> list[str]:
    return [str(j.payload["url"]) for j in await world.store.list_jobs()]


@pytest.mark.parametrize(
    "error", [StoreError("SQLite: database is locked"), OSError(28, "No space left on device"), KeyError("x")]
)
async def test_any_error_of_the_enqueue_means_not_kept(
    tmp_path: Path, clock: VirtualClock, error: BaseException
) -> None:
    world = World(clock, tmp_path)
    intake = intake_over(world, RefusingJobs(world, lambda: error))

    with pytest.raises(UpdateNotKept):
        await intake.accept(message("a.example/1"))

    assert await urls_queued(world) == []
    await settle()
    assert world.messenger.chat(PRIVATE_CHAT) == []  # nothing said: the update will be handled again


async def test_handling_the_update_again_queues_only_the_links_that_had_not_landed(
    tmp_path: Path, clock: VirtualClock
) -> None:
    world = World(clock, tmp_path)
    landed = 0

    def refuse_after_the_first() -> BaseException | None:
        nonlocal landed
        landed += 1
        return StoreError("SQLite: database is locked") if landed == 2 else None

    jobs = RefusingJobs(world, refuse_after_the_first)
    intake = intake_over(world, jobs)
    with pytest.raises(UpdateNotKept):
        await intake.accept(message("a.example/1 a.example/2", message_id=4))
    assert await urls_queued(world) == ["https://a.example/1"]

    report = await intake.accept(message("a.example/1 a.example/2", message_id=4))  # the replay

    assert (report.already_handled, report.accepted) == (["https://a.example/1"], ["https://a.example/2"])
    assert await urls_queued(world) == ["https://a.example/1", "https://a.example/2"]
    await settle()
    assert len(world.messenger.chat(PRIVATE_CHAT)) == 2  # one log message per link, not three


async def test_a_chat_whose_settings_cannot_be_read_is_not_kept_and_then_queued_as_it_chose(
    tmp_path: Path, clock: VirtualClock
) -> None:
    world = World(clock, tmp_path)
    await world.store.save_chat_settings(PRIVATE_CHAT, ChatSettings(audio_only=True), clock.now())
    choices = RefusingChoices(world)
    intake = intake_over(world, RefusingJobs(world, lambda: None), choices)

    with pytest.raises(UpdateNotKept):
        await intake.accept(message("a.example/1"))
    choices.refusing = False
    await intake.accept(message("a.example/1"))

    [job] = await world.store.list_jobs()
    assert job.payload["audio"] is True


async def test_on_the_last_try_the_links_not_kept_are_reported_after_one_refusal(
    tmp_path: Path, clock: VirtualClock
) -> None:
    world = World(clock, tmp_path)
    jobs = RefusingJobs(world, lambda: StoreError("SQLite: database is locked"))
    intake = intake_over(world, jobs)

    report = await intake.accept(message("a.example/1 b.example/2 c.example/3"), last_try=True)

    assert report.not_kept == ["https://a.example/1", "https://b.example/2", "https://c.example/3"]
    assert jobs.tries == 1  # one busy timeout, not one per link
    assert report.accepted == []


async def test_a_message_or_an_edit_the_store_cannot_check_is_not_kept(
    tmp_path: Path, clock: VirtualClock
) -> None:
    world = World(clock, tmp_path)
    intake = intake_over(world, RefusingJobs(world, lambda: None), seen=Forgetful())
    sent = message("a.example/1")

    with pytest.raises(UpdateNotKept):
        await intake.accept(replace(sent, edited=True))
    with pytest.raises(UpdateNotKept):
        await intake.accept(sent)
    assert await urls_queued(world) == []
