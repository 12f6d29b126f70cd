"""Helpers shared by the queue's contract tests."""

from __future__ import annotations

from ports.jobs import Job, NewJob
from ports.store import Store
from tests.contract.conftest import NOW

LEASE = 30.0
ME, OTHER, DEAD = "worker-me", "worker-other", "worker-dead"


def new_job(name: str = "download_video", **changes: object) -> NewJob:
    fields: dict[str, object] = {"payload": {"chat_id": 7, "url": "https://example.com/v"}, "max_attempts": 3}
    fields.update(changes)
    return NewJob(name, **fields)  # type: ignore[arg-type]


async def enqueued(store: Store, job: NewJob | None = None, now: float = NOW) -> int:
    job_id = await store.enqueue(job or new_job(), now)
    assert job_id is not None
    return job_id


async def claimed(store: Store, now: float = NOW, worker: str = ME, **kwargs: object) -> Job:
    job = await store.claim(worker, now, LEASE, **kwargs)  # type: ignore[arg-type]
    assert job is not None
    return job


async def only_job(store: Store) -> Job:
    [job] = await store.list_jobs()
    return job


async def stored(store: Store, job_id: int) -> Job:
    [job] = [j for j in await store.list_jobs(limit=10_000) if j.id == job_id]
    return job
