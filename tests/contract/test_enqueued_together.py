"""JobQueue contract, enqueues in flight at once (a burst of links, each handler awaiting its own):
the answers are those of the same enqueues one after another, in the order they were submitted —
a store may write them together (PostgreSQL: one statement per batch)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from ports.jobs import HandledUrlGuard, NewJob
from ports.store import Store
from tests.contract.conftest import NOW
from tests.contract.support import claimed, new_job

A, B, C = 101, 202, -303


async def together(store: Store, jobs: Sequence[tuple[NewJob, HandledUrlGuard | None]]) -> list[int | None]:
    return list(await asyncio.gather(*(store.enqueue(job, NOW, guard) for job, guard in jobs)))


def of(requester: int, n: int) -> tuple[NewJob, None]:
    return new_job(payload={"who": requester, "n": n}, requester=requester), None


async def test_jobs_enqueued_together_take_ids_and_turns_in_submission_order(store: Store) -> None:
    submitted = [of(A, 0), of(A, 1), of(B, 0), of(C, 0), of(A, 2), of(B, 1), of(C, 1), of(C, 2), of(A, 3)]

    ids = [job_id for job_id in await together(store, submitted) if job_id is not None]

    assert len(set(ids)) == 9
    assert ids == sorted(ids)
    order = [(await claimed(store)).id for _ in ids]
    a0, a1, b0, c0, a2, b1, c1, c2, a3 = ids
    assert order == [a0, b0, c0, a1, b1, c1, a2, c2, a3]  # round-robin, first-in first-out within each


async def test_of_one_link_enqueued_twice_together_only_the_first_becomes_a_job(store: Store) -> None:
    link = HandledUrlGuard(5, 6, "https://example.com/v")
    other = HandledUrlGuard(5, 6, "https://example.com/w")

    first, second, third = await together(
        store, [(new_job(), link), (new_job(), link), (new_job(payload={"url": "w"}), other)]
    )

    assert first is not None
    assert third is not None
    assert first < third
    assert second is None
    assert sorted(job.id for job in await store.list_jobs()) == [first, third]
    assert await together(store, [(new_job(), link), (new_job(), link)]) == [None, None]


async def test_quick_rows_enqueued_together_go_first_in_their_order(store: Store) -> None:
    slow, quick_b, quick_a = await together(
        store,
        [
            of(A, 0),
            (new_job(payload={"quick": B}, requester=B, quick=True), None),
            (new_job(payload={"quick": A}, requester=A, quick=True), None),
        ],
    )

    assert [(await claimed(store)).id for _ in range(3)] == [quick_b, quick_a, slow]
