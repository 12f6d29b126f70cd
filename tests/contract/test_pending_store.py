"""PendingStore contract: parked confirmations, and confirm/cancel racing on one atomic claim."""

from __future__ import annotations

import asyncio
import random

import pytest

from ports.errors import StoreError
from ports.jobs import NewJob
from ports.pending import CancelOutcome, PendingRequest
from ports.store import Store
from tests.contract.conftest import NOW, StoreKit

REQUESTER = 11


def parked(
    pending_id: str = "p1", *, created_at: float = NOW, blob_key: str | None = "youtube:abc:18"
) -> PendingRequest:
    job = NewJob(
        "send_confirmed",
        {"chat_id": -100, "message_id": 5, "pending_id": pending_id},
        max_attempts=3,
        key="youtube.com",
        owner_id=REQUESTER,
    )
    return PendingRequest(pending_id, -100, REQUESTER, 5, job, blob_key, created_at)


async def test_park_and_read_back(store: Store) -> None:
    request = parked()

    await store.park(request)

    assert await store.pending("p1") == request
    assert await store.pending("missing") is None


async def test_adopt_moves_the_request_into_the_queue_once(store: Store) -> None:
    await store.park(parked())

    job_id = await store.adopt("p1", NOW + 5)

    assert job_id is not None
    [job] = await store.list_jobs()
    assert (job.id, job.name, job.payload) == (job_id, "send_confirmed", parked().job.payload)
    assert (job.attempts, job.max_attempts, job.key, job.owner_id) == (0, 3, "youtube.com", REQUESTER)
    assert (job.available_at, job.created_at) == (NOW + 5, NOW + 5)
    assert await store.pending("p1") is None
    assert await store.adopt("p1", NOW) is None
    assert await store.cancel("p1", REQUESTER) is CancelOutcome.GONE


async def test_only_the_requester_may_cancel(store: Store) -> None:
    await store.park(parked())

    assert await store.cancel("p1", REQUESTER + 1) is CancelOutcome.NOT_REQUESTER
    assert await store.pending("p1") is not None
    assert await store.cancel("p1", REQUESTER) is CancelOutcome.CANCELLED
    assert await store.pending("p1") is None
    assert await store.adopt("p1", NOW) is None
    assert await store.list_jobs() == []


async def test_adopt_and_cancel_are_exclusive_under_1000_concurrent_pairs(store: Store) -> None:
    ids = [f"p{n}" for n in range(1000)]
    await asyncio.gather(*(store.park(parked(pending_id)) for pending_id in ids))
    calls = [("adopt", i) for i in ids] + [("cancel", i) for i in ids]
    random.Random(1000).shuffle(calls)

    async def race(kind: str, pending_id: str) -> tuple[str, str, bool]:
        if kind == "adopt":
            return kind, pending_id, await store.adopt(pending_id, NOW) is not None
        return kind, pending_id, await store.cancel(pending_id, REQUESTER) is CancelOutcome.CANCELLED

    results = await asyncio.gather(*(race(kind, pending_id) for kind, pending_id in calls))

    winners: dict[str, list[str]] = {pending_id: [] for pending_id in ids}
    for kind, pending_id, won in results:
        if won:
            winners[pending_id].append(kind)
    assert all(len(kinds) == 1 for kinds in winners.values())
    adopted = sum(kinds == ["adopt"] for kinds in winners.values())
    assert 0 < adopted < 1000  # both sides won some races, so both paths ran
    assert len(await store.list_jobs(limit=2000)) == adopted
    assert all([await store.pending(pending_id) is None for pending_id in ids])


async def test_a_failing_insert_keeps_the_request_parked(kit: StoreKit) -> None:
    if kit.fail_inserts_into is None:
        pytest.skip("in memory, nothing can fail between taking the request and inserting its job")
    await kit.store.park(parked())
    await kit.fail_inserts_into("jobs")

    with pytest.raises(StoreError):
        await kit.store.adopt("p1", NOW)

    assert await kit.store.pending("p1") == parked()
    assert await kit.store.list_jobs() == []


async def test_expire_returns_and_deletes_only_old_requests(store: Store) -> None:
    old, young = parked("old", created_at=NOW - 7 * 3600), parked("young", created_at=NOW)
    await store.park(old)
    await store.park(young)

    expired = await store.expire(NOW - 6 * 3600)

    assert expired == [old]
    assert await store.pending("old") is None
    assert await store.pending("young") == young


async def test_parked_requests_pin_their_blob_keys(store: Store) -> None:
    await store.park(parked("a", blob_key="k1"))
    await store.park(parked("b", blob_key="k1"))
    await store.park(parked("c", blob_key="k2"))
    await store.park(parked("d", blob_key=None))

    assert await store.pinned_keys() == {"k1", "k2"}
    await store.cancel("c", REQUESTER)
    assert await store.pinned_keys() == {"k1"}
