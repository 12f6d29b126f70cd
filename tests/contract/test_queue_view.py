"""QueueView and UserQuota contract: the operator's listings, retries and purges, the per-user count."""

from __future__ import annotations

from ports.jobs import JobNameStats, QueueCounts, QueueStats
from ports.store import Store
from tests.contract.conftest import NOW
from tests.contract.support import ME, OTHER, claimed, enqueued, new_job


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


async def test_stats_put_every_row_in_one_state_by_job_name(store: Store) -> None:
    overdue, running, backing_off, failed, failed_update = [
        await enqueued(store, new_job(name)) for name in ["download_video"] * 4 + ["update_ytdlp"]
    ]
    for worker, at, lease_seconds, expected in ((OTHER, NOW, 30.0, overdue), (ME, NOW + 20, 200.0, running)):
        held = await store.claim(worker, at, lease_seconds)
        assert held is not None
        assert held.id == expected
    job = await claimed(store, NOW + 20)
    assert job.id == backing_off
    await store.retry_later(job.lease, NOW + 500, "HTTP Error 503")
    for job_id, failed_at in ((failed, NOW + 5), (failed_update, NOW + 50)):
        job = await claimed(store, NOW + 20)
        assert job.id == job_id
        await store.dead_letter(job.lease, "boom", failed_at)
    await enqueued(store, now=NOW + 40)
    await enqueued(store, now=NOW + 60)
    await enqueued(store, new_job("update_ytdlp", available_at=NOW + 3600), now=NOW + 60)

    assert await store.stats(NOW + 100) == QueueStats(
        NOW + 100,
        (
            JobNameStats(
                "download_video",
                queued=2,
                backing_off=1,
                running=1,
                overdue=1,
                failed=1,
                oldest_due_at=NOW + 40,
                last_failed_at=NOW + 5,
            ),
            JobNameStats("update_ytdlp", scheduled=1, failed=1, last_failed_at=NOW + 50),
        ),
    )
    # Judged at a later moment, the same rows are in other states: due, and past the long lease.
    later = await store.stats(NOW + 4000)
    assert [(s.queued, s.scheduled, s.backing_off, s.running, s.overdue) for s in later.names] == [
        (3, 0, 0, 0, 2),
        (1, 0, 0, 0, 0),
    ]
    assert later.names[1].oldest_due_at == NOW + 3600


async def test_stats_of_an_empty_queue_name_nothing(store: Store) -> None:
    assert await store.stats(NOW) == QueueStats(NOW, ())


async def test_purge_failed_by_age_and_name_keeps_the_rest(store: Store) -> None:
    for name, failed_at in (("download_video", NOW), ("update_ytdlp", NOW), ("download_video", NOW + 100)):
        await enqueued(store, new_job(name))
        await store.dead_letter((await claimed(store)).lease, "boom", failed_at)
    queued = await enqueued(store)

    assert await store.purge_failed(failed_before=NOW + 50, name="download_video") == 1
    assert [(f.name, f.failed_at) for f in await store.list_failed()] == [
        ("update_ytdlp", NOW),
        ("download_video", NOW + 100),
    ]
    assert await store.purge_failed(failed_before=NOW + 50) == 1
    assert await store.purge_failed(failed_before=NOW + 100) == 0  # strictly before
    assert await store.purge_failed(name="update_ytdlp") == 0
    assert await store.purge_failed() == 1
    assert [j.id for j in await store.list_jobs()] == [queued]
