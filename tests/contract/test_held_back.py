"""HeldBackJobs contract: a job enqueued for later is let go early with a new payload, only while
no claim ever took it."""

from __future__ import annotations

from ports.jobs import Job
from ports.store import Store
from tests.contract.conftest import NOW
from tests.contract.support import LEASE, ME, claimed, enqueued, new_job, stored

HOLD = 10.0


async def test_a_held_back_job_let_go_early_is_due_now_with_the_new_payload(store: Store) -> None:
    job_id = await enqueued(store, new_job(available_at=NOW + HOLD))
    assert await store.claim(ME, NOW, LEASE) is None  # held back

    assert await store.release_held_back(
        job_id, {"url": "https://example.com/v", "log": {"message_ids": [9]}}, NOW
    )

    job: Job = await claimed(store, NOW)
    assert (job.id, job.payload["log"]) == (job_id, {"message_ids": [9]})


async def test_a_job_a_claim_took_first_is_not_changed(store: Store) -> None:
    job_id = await enqueued(store, new_job())
    first = await claimed(store, NOW)

    assert not await store.release_held_back(job_id, {"log": {"message_ids": [9]}}, NOW)

    assert (await stored(store, job_id)).payload == first.payload


async def test_a_job_claimed_once_and_let_go_again_is_not_changed(store: Store) -> None:
    job_id = await enqueued(store, new_job())
    job = await claimed(store, NOW)
    await store.retry_later(job.lease, NOW + 100, "HTTP Error 503")

    assert not await store.release_held_back(job_id, {"log": {}}, NOW)

    assert (await stored(store, job_id)).available_at == NOW + 100


async def test_a_job_that_is_gone_is_not_changed(store: Store) -> None:
    assert not await store.release_held_back(12345, {}, NOW)
