"""JobQueue contract, the fair order: round-robin across requesters, first-in, first-out within
one, a newcomer after the current round, work without a requester in its own place, and the
place a waiting row is told (QueueView.ahead_of) counted in that same order."""

from __future__ import annotations

from ports.store import Store
from tests.contract.conftest import NOW
from tests.contract.support import LEASE, ME, claimed, enqueued, new_job

A, B, C = 101, 202, -303  # two private chats and a group


async def enqueued_for(store: Store, requester: int | None, n: int = 1, now: float = NOW) -> list[int]:
    return [
        await enqueued(store, new_job(payload={"who": requester, "n": i}, requester=requester), now)
        for i in range(n)
    ]


async def claim_order(store: Store, n: int, now: float = NOW) -> list[int]:
    return [(await claimed(store, now)).id for _ in range(n)]


async def test_claims_go_round_robin_across_three_requesters_fifo_within_each(store: Store) -> None:
    a = await enqueued_for(store, A, 4)
    b = await enqueued_for(store, B, 2)
    c = await enqueued_for(store, C, 3)

    order = await claim_order(store, 9)

    assert order == [a[0], b[0], c[0], a[1], b[1], c[1], a[2], c[2], a[3]]
    assert await store.claim(ME, NOW, LEASE) is None


async def test_a_newcomer_runs_after_the_current_round_not_after_the_backlog(store: Store) -> None:
    a = await enqueued_for(store, A, 12)
    running = await claim_order(store, 3)

    [b] = await enqueued_for(store, B)

    assert running == a[:3]
    assert (await claimed(store)).id == b
    assert (await claimed(store)).id == a[3]


async def test_a_requester_posting_again_waits_for_the_others_turns(store: Store) -> None:
    a = await enqueued_for(store, A, 3)
    [b1] = await enqueued_for(store, B)
    assert (await claimed(store)).id == a[0]

    [b2] = await enqueued_for(store, B)

    assert await claim_order(store, 4) == [b1, a[1], b2, a[2]]


async def test_work_without_a_requester_keeps_its_own_place(store: Store) -> None:
    a = await enqueued_for(store, A, 5)
    assert (await claimed(store)).id == a[0]

    [periodic] = await enqueued_for(store, None)

    assert await claim_order(store, 2) == [periodic, a[1]]


async def test_a_retry_due_again_goes_back_to_its_old_place(store: Store) -> None:
    [a] = await enqueued_for(store, A)
    await store.retry_later((await claimed(store)).lease, NOW + 10, "HTTP Error 503")
    b = await enqueued_for(store, B, 3, now=NOW + 1)
    assert (await claimed(store, NOW + 5)).id == b[0]

    assert await claim_order(store, 3, NOW + 10) == [a, b[1], b[2]]


async def test_the_place_told_counts_the_free_due_rows_the_claims_take_first(store: Store) -> None:
    a = await enqueued_for(store, A, 5)
    await enqueued(store, new_job(requester=C, available_at=NOW + 60))  # due later: not ahead
    [b] = await enqueued_for(store, B)
    assert (await claimed(store)).id == a[0]  # running: not ahead

    assert await store.ahead_of(b, NOW) == 0
    assert await store.ahead_of(a[1], NOW) == 1  # b was given the round a[0] started
    assert await store.ahead_of(a[4], NOW) == 4
    assert await store.ahead_of(a[0], NOW) == 0  # held
    assert await store.ahead_of(10_000, NOW) == 0  # gone


async def enqueued_quick(store: Store, requester: int) -> int:
    return await enqueued(store, new_job(payload={"quick": requester}, requester=requester, quick=True))


async def test_a_quick_row_goes_before_the_whole_fair_order_fifo_among_quick_rows(store: Store) -> None:
    a = await enqueued_for(store, A, 3)
    first_quick = await enqueued_quick(store, B)
    second_quick = await enqueued_quick(store, A)

    assert await claim_order(store, 5) == [first_quick, second_quick, a[0], a[1], a[2]]


async def test_the_quick_lane_claims_only_quick_rows(store: Store) -> None:
    await enqueued_for(store, A, 2)
    assert await store.claim(ME, NOW, LEASE, quick_only=True) is None

    quick = await enqueued_quick(store, B)

    assert (await claimed(store, quick_only=True)).id == quick
    assert await store.claim(ME, NOW, LEASE, quick_only=True) is None
    # A row enqueued while only a quick one runs is an ordinary row, not a quick one.
    await enqueued_for(store, C)
    assert await store.claim(ME, NOW, LEASE, quick_only=True) is None


async def test_with_the_fair_order_off_claims_are_first_in_first_out(fifo_store: Store) -> None:
    a = await enqueued_for(fifo_store, A, 3)
    [b] = await enqueued_for(fifo_store, B)

    assert await claim_order(fifo_store, 4) == [*a, b]
    assert [job.id for job in await fifo_store.jobs_of(B)] == [b]  # still whose it is (/cancel)
