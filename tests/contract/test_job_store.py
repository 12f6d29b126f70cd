"""JobStore contract: FIFO claims, write-ahead attempts, leases, retries, dead letters, guards."""

from __future__ import annotations

import pytest

from ports.errors import StoreError
from ports.jobs import HandledUrlGuard, Job, NewJob, QueueCounts, SingletonGuard
from ports.store import Store
from tests.contract.conftest import NOW, StoreKit

LEASE = 60.0


def new_job(name: str = "download_video", **changes: object) -> NewJob:
    fields: dict[str, object] = {"payload": {"chat_id": 7, "url": "https://example.com/v"}, "max_attempts": 3}
    fields.update(changes)
    return NewJob(name, **fields)  # type: ignore[arg-type]


async def enqueued(store: Store, job: NewJob | None = None, now: float = NOW) -> int:
    job_id = await store.enqueue(job or new_job(), now)
    assert job_id is not None
    return job_id


async def claimed(store: Store, now: float = NOW, **kwargs: object) -> Job:
    job = await store.claim("worker-1", now, LEASE, **kwargs)  # type: ignore[arg-type]
    assert job is not None
    return job


async def only_job(store: Store) -> Job:
    [job] = await store.list_jobs()
    return job


# Enqueue and claim ------------------------------------------------------------------------------


async def test_enqueue_stores_every_field(store: Store) -> None:
    job = new_job(
        payload={"chat_id": -100, "nested": {"list": [1, 2.5, None, True, "é"]}}, key="k", owner_id=9
    )
    job_id = await enqueued(store, job)

    stored = await only_job(store)

    assert stored == Job(
        id=job_id,
        name="download_video",
        payload={"chat_id": -100, "nested": {"list": [1, 2.5, None, True, "é"]}},
        attempts=0,
        max_attempts=3,
        available_at=NOW,
        created_at=NOW,
        key="k",
        owner_id=9,
    )


async def test_claims_are_fifo_by_id(store: Store) -> None:
    ids = [await enqueued(store, new_job(payload={"n": n})) for n in range(5)]

    order = [(await claimed(store)).id for _ in ids]

    assert order == ids
    assert await store.claim("worker-1", NOW, LEASE) is None


async def test_a_due_retry_goes_before_younger_jobs(store: Store) -> None:
    first = await enqueued(store)
    await claimed(store)
    await store.retry_later(first, NOW + 10, "HTTP Error 503")
    second = await enqueued(store, now=NOW + 1)

    assert (await claimed(store, NOW + 5)).id == second
    assert (await claimed(store, NOW + 10)).id == first


async def test_claim_spends_the_attempt_before_the_work(store: Store) -> None:
    job_id = await enqueued(store)

    job = await claimed(store)

    assert (job.id, job.attempts, job.claimed_by, job.lease_until) == (job_id, 1, "worker-1", NOW + LEASE)
    stored = await only_job(store)
    assert (stored.attempts, stored.claimed_by, stored.lease_until) == (1, "worker-1", NOW + LEASE)


async def test_a_job_is_not_claimable_before_its_available_at(store: Store) -> None:
    job_id = await enqueued(store, new_job(available_at=NOW + 30))

    assert await store.claim("worker-1", NOW + 29.9, LEASE) is None
    assert (await claimed(store, NOW + 30)).id == job_id


# Leases -----------------------------------------------------------------------------------------


async def test_a_leased_job_is_claimable_again_once_its_lease_expires(store: Store) -> None:
    job_id = await enqueued(store)
    await claimed(store)

    assert await store.claim("worker-2", NOW + LEASE - 1, LEASE) is None
    again = await store.claim("worker-2", NOW + LEASE, LEASE)

    assert again is not None
    assert (again.id, again.attempts, again.claimed_by) == (job_id, 2, "worker-2")


async def test_recover_leases_frees_every_leased_row_and_keeps_attempts(store: Store) -> None:
    for _ in range(3):
        await enqueued(store)
    await claimed(store)
    await claimed(store)

    assert await store.recover_leases() == 2

    jobs = await store.list_jobs()
    assert [(j.claimed_by, j.lease_until) for j in jobs] == [(None, None)] * 3
    assert [j.attempts for j in jobs] == [1, 1, 0]
    assert (await claimed(store)).attempts == 2


# Retries, releases, payload updates ----------------------------------------------------------------


async def test_retry_later_drops_the_lease_keeps_attempts_and_records_the_error(store: Store) -> None:
    job_id = await enqueued(store)
    await claimed(store)

    await store.retry_later(job_id, NOW + 30, "HTTP Error 503")

    stored = await only_job(store)
    assert (stored.attempts, stored.available_at, stored.last_error) == (1, NOW + 30, "HTTP Error 503")
    assert (stored.claimed_by, stored.lease_until) == (None, None)
    assert await store.claim("worker-1", NOW + 29, LEASE) is None
    assert await store.next_wakeup(NOW) == NOW + 30
    assert (await claimed(store, NOW + 30)).attempts == 2


async def test_release_refunds_the_attempt(store: Store) -> None:
    job_id = await enqueued(store)
    await claimed(store)

    await store.release(job_id, NOW + 5)

    stored = await only_job(store)
    assert (stored.attempts, stored.available_at, stored.claimed_by, stored.lease_until) == (
        0,
        NOW + 5,
        None,
        None,
    )
    assert (await claimed(store, NOW + 5)).attempts == 1


async def test_update_payload_is_seen_by_the_next_attempt(store: Store) -> None:
    job_id = await enqueued(store)
    await claimed(store)

    await store.update_payload(job_id, {"chat_id": 7, "log_message_id": 42})
    await store.release(job_id, NOW)

    assert (await claimed(store)).payload == {"chat_id": 7, "log_message_id": 42}


async def test_complete_deletes_the_row(store: Store) -> None:
    job_id = await enqueued(store)
    await claimed(store)

    await store.complete(job_id)

    assert await store.list_jobs() == []
    assert await store.counts() == QueueCounts(0, 0, 0)


async def test_operations_on_a_missing_row_change_nothing(store: Store) -> None:
    await store.complete(404)
    await store.retry_later(404, NOW, "x")
    await store.release(404, NOW)
    await store.update_payload(404, {})

    assert await store.dead_letter(404, "x", NOW) is None
    assert await store.list_jobs() == []


# Paused keys and wake-ups ---------------------------------------------------------------------------


async def test_jobs_of_paused_keys_are_skipped_not_failed(store: Store) -> None:
    paused = await enqueued(store, new_job(key="broken.example"))
    other = await enqueued(store, new_job(key="fine.example"))

    assert (await claimed(store, paused_keys={"broken.example"})).id == other
    assert await store.claim("worker-1", NOW, LEASE, paused_keys={"broken.example"}) is None
    assert (await claimed(store)).id == paused


async def test_next_wakeup_is_the_earliest_due_row_or_lease_expiry(store: Store) -> None:
    assert await store.next_wakeup(NOW) is None

    await enqueued(store, new_job(available_at=NOW + 100))
    assert await store.next_wakeup(NOW) == NOW + 100

    leased = await enqueued(store, new_job(available_at=NOW + 1))
    assert (await claimed(store, NOW + 1)).id == leased
    assert await store.next_wakeup(NOW + 1) == NOW + 1 + LEASE

    await enqueued(store, new_job(key="paused.example", available_at=NOW + 10))
    assert await store.next_wakeup(NOW + 1) == NOW + 10
    assert await store.next_wakeup(NOW + 1, paused_keys={"paused.example"}) == NOW + 1 + LEASE


# Dead letters -------------------------------------------------------------------------------------------


async def test_dead_letter_moves_the_row_with_payload_error_and_attempts(store: Store) -> None:
    job_id = await enqueued(store, new_job(key="site", owner_id=5))
    await claimed(store)

    failed = await store.dead_letter(job_id, "💥 Unsupported URL\n\nTraceback ...", NOW + 3)

    assert failed is not None
    assert (failed.job_id, failed.name, failed.payload) == (job_id, "download_video", new_job().payload)
    assert (failed.error, failed.attempts, failed.max_attempts) == (
        "💥 Unsupported URL\n\nTraceback ...",
        1,
        3,
    )
    assert (failed.key, failed.owner_id, failed.created_at, failed.failed_at) == ("site", 5, NOW, NOW + 3)
    assert await store.list_jobs() == []
    assert await store.list_failed() == [failed]
    assert await store.counts() == QueueCounts(waiting=0, running=0, failed=1)
    assert await store.dead_letter(job_id, "again", NOW) is None


async def test_dead_letter_is_atomic_when_the_failed_insert_fails(kit: StoreKit) -> None:
    if kit.fail_inserts_into is None:
        pytest.skip("an in-memory move has no step that can fail halfway")
    job_id = await enqueued(kit.store)
    await kit.fail_inserts_into("failed_jobs")

    with pytest.raises(StoreError):
        await kit.store.dead_letter(job_id, "boom", NOW)

    assert [j.id for j in await kit.store.list_jobs()] == [job_id]
    assert await kit.store.list_failed() == []


async def test_exhausted_lists_unleased_rows_that_spent_every_attempt(store: Store) -> None:
    spent = await enqueued(store, new_job(max_attempts=1))
    running = await enqueued(store, new_job(max_attempts=1))
    fresh = await enqueued(store, new_job(max_attempts=1))
    await claimed(store)
    await claimed(store)
    await store.retry_later(spent, NOW, "killed")
    assert fresh

    assert [j.id for j in await store.exhausted(NOW)] == [spent]
    assert [j.id for j in await store.exhausted(NOW + LEASE)] == [spent, running]


async def test_retry_failed_requeues_with_fresh_attempts(store: Store) -> None:
    first, second, third = [
        await enqueued(store, new_job(payload={"n": n}, key="k", owner_id=3)) for n in range(3)
    ]
    for job_id in (first, second, third):
        await claimed(store)
        await store.dead_letter(job_id, "boom", NOW)
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
        await store.dead_letter(await enqueued(store), "boom", NOW)

    assert await store.purge_failed() == 2
    assert await store.list_failed() == []
    assert await store.purge_failed() == 0


# Counts and listings --------------------------------------------------------------------------------


async def test_counts_and_per_owner_waiting(store: Store) -> None:
    for owner in (1, 1, 1, 2, None):
        await enqueued(store, new_job(owner_id=owner))
    await store.dead_letter((await claimed(store)).id, "boom", NOW)

    assert await store.counts() == QueueCounts(waiting=4, running=0, failed=1)
    await claimed(store)
    assert await store.counts() == QueueCounts(waiting=3, running=1, failed=1)
    assert await store.waiting_for_owner(1) == 2
    assert await store.waiting_for_owner(2) == 1
    assert await store.waiting_for_owner(3) == 0


async def test_listings_are_in_id_order_and_limited(store: Store) -> None:
    ids = [await enqueued(store, new_job(payload={"n": n})) for n in range(4)]
    for job_id in ids[:3]:
        await store.dead_letter(job_id, f"boom {job_id}", NOW)
    await enqueued(store)

    assert [j.id for j in await store.list_jobs(limit=1)] == [ids[3]]
    failed = await store.list_failed(limit=2)
    assert [f.job_id for f in failed] == ids[:2]
    assert failed[0].id < failed[1].id


# Guards ------------------------------------------------------------------------------------------------


async def test_handled_url_guard_enqueues_once_per_chat_message_and_url(store: Store) -> None:
    guard = HandledUrlGuard(chat_id=1, message_id=2, url="https://example.com/v")

    first = await store.enqueue(new_job(), NOW, guard)
    again = await store.enqueue(new_job(payload={"other": True}), NOW, guard)
    other_message = await store.enqueue(new_job(), NOW, HandledUrlGuard(1, 3, "https://example.com/v"))

    assert first is not None
    assert again is None
    assert other_message is not None
    assert [j.id for j in await store.list_jobs()] == [first, other_message]


async def test_forgetting_or_sweeping_a_handled_url_reopens_it(store: Store) -> None:
    guard = HandledUrlGuard(1, 2, "https://example.com/v")
    await store.enqueue(new_job(), NOW, guard)

    await store.forget_handled(1, 2, "https://example.com/v")
    assert await store.enqueue(new_job(), NOW + 10, guard) is not None

    await store.enqueue(new_job(), NOW + 20, HandledUrlGuard(1, 9, "https://example.com/young"))
    assert await store.sweep_handled(NOW + 15) == 1
    assert await store.enqueue(new_job(), NOW, guard) is not None
    assert await store.enqueue(new_job(), NOW, HandledUrlGuard(1, 9, "https://example.com/young")) is None


async def test_singleton_guard_refuses_while_a_job_of_that_name_waits_or_runs(store: Store) -> None:
    first = await store.enqueue(new_job("update_ytdlp"), NOW, SingletonGuard())
    assert first is not None
    assert await store.enqueue(new_job("update_ytdlp"), NOW, SingletonGuard()) is None
    assert await store.enqueue(new_job("sweep_caches"), NOW, SingletonGuard()) is not None

    await claimed(store)
    assert await store.enqueue(new_job("update_ytdlp"), NOW, SingletonGuard()) is None

    await store.complete(first)
    assert await store.enqueue(new_job("update_ytdlp"), NOW, SingletonGuard()) is not None


async def test_a_failing_job_insert_leaves_no_handled_mark(kit: StoreKit) -> None:
    if kit.fail_inserts_into is None:
        pytest.skip("in memory, nothing can fail between the guard mark and the insert")
    guard = HandledUrlGuard(1, 2, "https://example.com/v")
    await kit.fail_inserts_into("jobs")

    with pytest.raises(StoreError):
        await kit.store.enqueue(new_job(), NOW, guard)

    assert await kit.store.list_jobs() == []
    assert await kit.store.sweep_handled(NOW + 1) == 0  # no mark was left behind


async def test_a_failing_guard_insert_leaves_no_job(kit: StoreKit) -> None:
    if kit.fail_inserts_into is None:
        pytest.skip("an in-memory guard mark cannot fail")
    await kit.fail_inserts_into("handled_urls")

    with pytest.raises(StoreError):
        await kit.store.enqueue(new_job(), NOW, HandledUrlGuard(1, 2, "https://example.com/v"))

    assert await kit.store.list_jobs() == []
