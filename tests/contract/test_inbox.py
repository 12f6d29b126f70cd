"""UpdateInbox contract: a batch is kept whole or not at all, once; a start replays what was not
handled, in update id order; a handled update is never handed out again until swept."""

from __future__ import annotations

import pytest

from ports.errors import StoreError
from ports.inbox import KeptUpdate, RawUpdate
from ports.store import Store
from tests.contract.conftest import NOW, StoreKit


def update(update_id: int, lane: str = "chat:7") -> RawUpdate:
    return RawUpdate(update_id, lane, f'{{"update_id": {update_id}, "message": {{"text": "é ✅"}}}}')


async def test_a_kept_batch_is_waiting_in_update_id_order_with_its_body_and_time(store: Store) -> None:
    batch = [update(12, "chat:1"), update(10, "chat:2"), update(11, "user:3")]

    new = await store.keep_updates(batch, NOW)

    assert new == [KeptUpdate(u, NOW) for u in batch]
    assert await store.waiting_updates() == [
        KeptUpdate(u, NOW) for u in sorted(batch, key=lambda u: u.update_id)
    ]


async def test_a_batch_handed_out_again_keeps_only_the_new_updates(store: Store) -> None:
    await store.keep_updates([update(1), update(2)], NOW)

    again = await store.keep_updates([update(1), update(2), update(3)], NOW + 5)

    assert again == [KeptUpdate(update(3), NOW + 5)]
    assert [(k.update.update_id, k.received_at) for k in await store.waiting_updates()] == [
        (1, NOW),
        (2, NOW),
        (3, NOW + 5),
    ]


async def test_a_handled_update_is_not_waiting_and_not_new_when_handed_out_again(store: Store) -> None:
    await store.keep_updates([update(1), update(2)], NOW)

    await store.update_handled(1, NOW + 1)

    assert [k.update.update_id for k in await store.waiting_updates()] == [2]
    assert await store.keep_updates([update(1)], NOW + 2) == []
    assert [k.update.update_id for k in await store.waiting_updates()] == [2]


async def test_marking_twice_or_an_unknown_update_changes_nothing(store: Store) -> None:
    await store.keep_updates([update(1)], NOW)
    await store.update_handled(1, NOW + 1)

    await store.update_handled(1, NOW + 100)
    await store.update_handled(99, NOW + 1)

    assert await store.sweep_inbox(NOW + 50) == 1  # marked at NOW + 1, not moved by the second mark
    assert await store.waiting_updates() == []


async def test_the_sweep_forgets_only_updates_handled_before_the_cut(store: Store) -> None:
    await store.keep_updates([update(1), update(2), update(3)], NOW)
    await store.update_handled(1, NOW + 10)
    await store.update_handled(2, NOW + 20)

    assert await store.sweep_inbox(NOW + 15) == 1

    assert [k.update.update_id for k in await store.waiting_updates()] == [3]  # never handled: kept
    assert [k.update.update_id for k in await store.keep_updates([update(1), update(2)], NOW + 30)] == [1]


async def test_an_empty_batch_keeps_nothing(store: Store) -> None:
    assert await store.keep_updates([], NOW) == []
    assert await store.waiting_updates() == []


async def test_update_ids_beyond_32_bits_are_kept(store: Store) -> None:
    big = update(2**40 + 3)
    assert await store.keep_updates([big], NOW) == [KeptUpdate(big, NOW)]
    assert await store.waiting_updates() == [KeptUpdate(big, NOW)]


async def test_a_batch_that_fails_inside_the_store_keeps_none_of_it(kit: StoreKit) -> None:
    if kit.fail_inserts_into is None:
        pytest.skip(f"the {kit.name} store cannot be made to fail from outside")
    store = kit.store
    await kit.fail_inserts_into("inbox")

    with pytest.raises(StoreError):
        await store.keep_updates([update(1), update(2)], NOW)

    assert await store.waiting_updates() == []
