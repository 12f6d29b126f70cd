"""FailedJobs and UserQuota contract: the operator's listings, retries and purges, the per-user count."""

from __future__ import annotations

from ports.jobs import QueueCounts
from ports.store import Store
from tests.contract.conftest import NOW
from tests.contract.support import claimed, enqueued, new_job


async def test_retry_failed_requeues_with_fresh_attempts(store: Store) -> None:
    first, second, third = [
        await enqueued(store, new_job(payload={"n": n}, key="k", owner_id=3)) for n in range(3)
    ]
    for _ in (first, second, third):
        await store.dead_letter((await claimed(store)).lease, "boom", NOW)
    failed_ids = [f.id for f in await store.list_failed()]

    new_ids = await store.retry_failed([failed_ids[1], 999_999], NOW + 50)

    [job] = await store.list_jobs()
    assert job.id == new_ids[0]
    assert job.id not in (first, second, third)
    assert (job.payload, job.attempts, job.available_at, job.key, job.owner_id) == (
        {"n": 1},
        0,
        NOW + 50,
        "k",
        3,
    )
    assert [f.id for f in await store.list_failed()] == [failed_ids[0], failed_ids[2]]

    rest = await store.retry_failed(None, NOW + 60)
    assert len(rest) == 2
    assert [j.payload for j in await store.list_jobs()] == [{"n": 1}, {"n": 0}, {"n": 2}]
    assert await store.list_failed() == []


async def test_purge_failed_forgets_every_dead_letter(store: Store) -> None:
    for _ in range(2):
        await enqueued(store)
        await store.dead_letter((await claimed(store)).lease, "boom", NOW)

    assert await store.purge_failed() == 2
    assert await store.list_failed() == []
    assert await store.purge_failed() == 0


async def test_counts_and_per_owner_waiting(store: Store) -> None:
    for owner in (1, 1, 1, 2, None):
        await enqueued(store, new_job(owner_id=owner))
    await store.dead_letter((await claimed(store)).lease, "boom", NOW)

    assert await store.counts() == QueueCounts(waiting=4, running=0, failed=1)
    await claimed(store)
    assert await store.counts() == QueueCounts(waiting=3, running=1, failed=1)
    assert await store.waiting_for_owner(1) == 2
    assert await store.waiting_for_owner(2) == 1
    assert await store.waiting_for_owner(3) == 0


async def test_listings_are_in_id_order_and_limited(store: Store) -> None:
    ids = [await enqueued(store, new_job(payload={"n": n})) for n in range(4)]
    for _ in ids[:3]:
        job = await claimed(store)
        await store.dead_letter(job.lease, f"boom {job.id}", NOW)
    await enqueued(store)

    assert [j.id for j in await store.list_jobs(limit=1)] == [ids[3]]
    failed = await store.list_failed(limit=2)
    assert [f.job_id for f in failed] == ids[:2]
    assert failed[0].id < failed[1].id
