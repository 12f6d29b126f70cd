"""HandledUrls contract, the message half: which messages the bot read (only those re-run when edited)."""

from __future__ import annotations

from ports.jobs import HandledUrlGuard, NewJob
from ports.store import Store
from tests.contract.conftest import NOW

URL = "https://example.com/v"


async def test_a_remembered_message_is_known_and_no_other_is(store: Store) -> None:
    await store.remember_message(1, 2, NOW)

    assert await store.knows_message(1, 2)
    assert not await store.knows_message(1, 3)
    assert not await store.knows_message(2, 2)
    assert not await store.knows_message(-1, 2)


async def test_a_message_whose_link_became_a_job_is_known(store: Store) -> None:
    await store.enqueue(NewJob("download_video", {}, 3), NOW, HandledUrlGuard(5, 6, URL))

    assert await store.knows_message(5, 6)


async def test_remembering_a_message_blocks_none_of_its_links(store: Store) -> None:
    await store.remember_message(1, 2, NOW)
    await store.remember_message(1, 2, NOW + 1)

    assert await store.enqueue(NewJob("download_video", {}, 3), NOW, HandledUrlGuard(1, 2, URL)) is not None


async def test_reopening_a_failed_link_keeps_a_remembered_message_known(store: Store) -> None:
    await store.remember_message(1, 2, NOW)
    await store.enqueue(NewJob("download_video", {}, 3), NOW, HandledUrlGuard(1, 2, URL))

    await store.forget_handled(1, 2, URL)

    assert await store.knows_message(1, 2)
    assert await store.enqueue(NewJob("download_video", {}, 3), NOW, HandledUrlGuard(1, 2, URL)) is not None


async def test_sweeping_forgets_old_messages(store: Store) -> None:
    await store.remember_message(1, 2, NOW)
    await store.remember_message(1, 3, NOW + 10)

    await store.sweep_handled(NOW + 5)

    assert not await store.knows_message(1, 2)
    assert await store.knows_message(1, 3)
