"""JobQueue contract: FIFO claims, write-ahead attempts, retries, releases, dead letters, guards."""

from __future__ import annotations

import pytest

from ports.errors import StoreError
from ports.jobs import HandledUrlGuard, Job, SingletonGuard
from ports.store import Store
from tests.contract.conftest import NOW, StoreKit
from tests.contract.support import LEASE, ME, claimed, enqueued, new_job, only_job

# Enqueue and claim ------------------------------------------------------------------------------


async def test_enqueue_stores_every_field(store: Store) -> None:
    job = new_job(
        payload={"chat_id": -100, "nested": {"list": [1, 2.5, None, True, "é"]}}, key="k", owner_id=9
    )
    job_id = await enqueued(store, job)

    assert await only_job(store) == Job(
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
    assert await store.claim(ME, NOW, LEASE) is None


async def test_a_due_retry_goes_before_younger_jobs(store: Store) -> None:
    first = await enqueued(store)
    lease = (await claimed(store)).lease
    await store.retry_later(lease, NOW + 10, "HTTP Error 503")
    second = await enqueued(store, now=NOW + 1)

    assert (await claimed(store, NOW + 5)).id == second
    assert (await claimed(store, NOW + 10)).id == first


async def test_claim_spends_the_attempt_before_the_work(store: Store) -> None:
    job_id = await enqueued(store)

    job = await claimed(store)

    assert (job.id, job.attempts, job.claimed_by, job.lease_until) == (job_id, 1, ME, NOW + LEASE)
    assert job.token > 0
    assert (await only_job(store)) == job


async def test_a_job_is_not_claimable_before_its_available_at(store: Store) -> None:
    job_id = await enqueued(store, new_job(available_at=NOW + 30))

    assert await store.claim(ME, NOW + 29.9, LEASE) is None
    assert (await claimed(store, NOW + 30)).id == job_id


# Finishing writes -----------------------------------------------------------------------------------


async def test_retry_later_lets_go_keeps_attempts_and_records_the_error(store: Store) -> None:
    await enqueued(store)
    lease = (await claimed(store)).lease

    assert await store.retry_later(lease, NOW + 30, "HTTP Error 503")

    row = await only_job(store)
    assert (row.attempts, row.available_at, row.last_error) == (1, NOW + 30, "HTTP Error 503")
    assert (row.claimed_by, row.lease_until) == (None, None)
    assert await store.claim(ME, NOW + 29, LEASE) is None
    assert await store.next_wakeup(ME, NOW) == NOW + 30
    assert (await claimed(store, NOW + 30)).attempts == 2


async def test_release_refunds_the_attempt(store: Store) -> None:
    await enqueued(store)
    lease = (await claimed(store)).lease

    assert await store.release(lease, NOW + 5)

    row = await only_job(store)
    assert (row.attempts, row.available_at, row.claimed_by, row.lease_until) == (0, NOW + 5, None, None)
    assert (await claimed(store, NOW + 5)).attempts == 1


async def test_update_payload_is_seen_by_the_next_attempt(store: Store) -> None:
    await enqueued(store)
    lease = (await claimed(store)).lease

    assert await store.update_payload(lease, {"chat_id": 7, "log_message_id": 42})
    await store.release(lease, NOW)

    assert (await claimed(store)).payload == {"chat_id": 7, "log_message_id": 42}


async def test_complete_deletes_the_row(store: Store) -> None:
    await enqueued(store)
    lease = (await claimed(store)).lease

    assert await store.complete(lease)

    assert await store.list_jobs() == []


async def test_dead_letter_moves_the_row_with_payload_error_and_attempts(store: Store) -> None:
    job_id = await enqueued(store, new_job(key="site", owner_id=5))
    lease = (await claimed(store)).lease

    failed = await store.dead_letter(lease, "💥 Unsupported URL\n\nTraceback ...", NOW + 3)

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
    assert await store.dead_letter(lease, "again", NOW) is None


async def test_dead_letter_is_atomic_when_the_failed_insert_fails(kit: StoreKit) -> None:
    if kit.fail_inserts_into is None:
        pytest.skip("an in-memory move has no step that can fail halfway")
    job_id = await enqueued(kit.store)
    lease = (await claimed(kit.store)).lease
    await kit.fail_inserts_into("failed_jobs")

    with pytest.raises(StoreError):
        await kit.store.dead_letter(lease, "boom", NOW)

    assert [j.id for j in await kit.store.list_jobs()] == [job_id]
    assert await kit.store.list_failed() == []
    assert await kit.store.release(lease, NOW)  # the claim still holds: nothing moved


# Paused keys and wake-ups ---------------------------------------------------------------------------


async def test_jobs_of_paused_keys_are_skipped_not_failed(store: Store) -> None:
    paused = await enqueued(store, new_job(key="broken.example"))
    other = await enqueued(store, new_job(key="fine.example"))

    assert (await claimed(store, paused_keys={"broken.example"})).id == other
    assert await store.claim(ME, NOW, LEASE, paused_keys={"broken.example"}) is None
    assert (await claimed(store)).id == paused


async def test_next_wakeup_is_the_earliest_free_row_or_lease_end_of_another_worker(store: Store) -> None:
    assert await store.next_wakeup(ME, NOW) is None

    await enqueued(store, new_job(available_at=NOW + 100))
    assert await store.next_wakeup(ME, NOW) == NOW + 100

    await enqueued(store, new_job(available_at=NOW + 1))
    await claimed(store, NOW + 1, worker="worker-other")
    assert await store.next_wakeup(ME, NOW + 1) == NOW + 1 + LEASE
    assert await store.next_wakeup("worker-other", NOW + 1) == NOW + 100  # its own lease wakes nobody

    await enqueued(store, new_job(key="paused.example", available_at=NOW + 10))
    assert await store.next_wakeup(ME, NOW + 1) == NOW + 10
    assert await store.next_wakeup(ME, NOW + 1, paused_keys={"paused.example"}) == NOW + 1 + LEASE


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

    lease = (await claimed(store)).lease
    assert await store.enqueue(new_job("update_ytdlp"), NOW, SingletonGuard()) is None

    await store.complete(lease)
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
