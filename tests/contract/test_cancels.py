"""JobCancels contract: a free row is removed at once, a held one is marked for its holder, the
mark names only the claim that holds the row and goes with the row."""

from __future__ import annotations

from ports.store import Store
from tests.contract.conftest import NOW
from tests.contract.support import DEAD, LEASE, ME, claimed, enqueued, new_job

CHAT, OTHER_CHAT = 41, -42


async def test_the_rows_of_a_requester_are_listed_queued_and_running(store: Store) -> None:
    first = await enqueued(store, new_job(requester=CHAT))
    await enqueued(store, new_job(requester=OTHER_CHAT))
    second = await enqueued(store, new_job(requester=CHAT))
    await claimed(store)

    assert [job.id for job in await store.jobs_of(CHAT)] == [first, second]
    assert await store.jobs_of(99) == []


async def test_a_free_row_is_removed_at_once(store: Store) -> None:
    job_id = await enqueued(store, new_job(requester=CHAT))

    cancelled = await store.cancel_job(job_id)

    assert cancelled is not None
    assert (cancelled.job.id, cancelled.running) == (job_id, False)
    assert await store.list_jobs() == []
    assert await store.list_failed() == []
    assert await store.cancel_job(job_id) is None


async def test_a_held_row_is_marked_for_its_holder_and_the_mark_goes_with_the_row(store: Store) -> None:
    job_id = await enqueued(store, new_job(requester=CHAT))
    other = await enqueued(store, new_job(requester=CHAT))
    lease, other_lease = (await claimed(store)).lease, (await claimed(store)).lease
    assert await store.cancel_asked([lease, other_lease]) == []

    cancelled = await store.cancel_job(job_id)

    assert cancelled is not None
    assert cancelled.running
    assert [job.id for job in await store.list_jobs()] == [job_id, other]  # still held
    assert await store.cancel_asked([lease, other_lease]) == [lease]
    assert await store.complete(lease)
    assert await store.cancel_asked([lease]) == []
    assert await store.cancel_job(job_id) is None


async def test_a_mark_outlives_its_holders_death_and_names_the_next_claim(store: Store) -> None:
    job_id = await enqueued(store, new_job(requester=CHAT))
    dead_lease = (await claimed(store, worker=DEAD)).lease
    await store.cancel_job(job_id)

    taken_over = await claimed(store, NOW + LEASE + 1, worker=ME)

    assert taken_over.id == job_id
    assert await store.cancel_asked([dead_lease, taken_over.lease]) == [taken_over.lease]
