"""LISTEN/NOTIFY between processes sharing one database, and a listening connection cut for real."""

from __future__ import annotations

import asyncio

import asyncpg

from adapters.postgres import PostgresStore
from adapters.postgres.notices import CHANNEL
from ports.jobs import NewJob

NOW = 1_700_000_000.0
WAIT = 20.0


class Wakes:
    def __init__(self) -> None:
        self.count = 0
        self._changed = asyncio.Event()

    def __call__(self) -> None:
        self.count += 1
        self._changed.set()

    async def beyond(self, count: int) -> None:
        """Until more than `count` wake-ups happened."""
        while self.count <= count:
            self._changed.clear()
            await asyncio.wait_for(self._changed.wait(), WAIT)


async def subscribed(store: PostgresStore) -> Wakes:
    """The store's idle-worker wake-ups, counted from after the catch-up wake of subscribing."""
    wakes = Wakes()
    store.on_work(wakes)
    await wakes.beyond(0)
    return wakes


async def test_an_enqueue_in_another_process_wakes_the_idle_workers(
    two_stores: tuple[PostgresStore, PostgresStore],
) -> None:
    worker, ingest = two_stores
    wakes = await subscribed(worker)
    before = wakes.count

    await ingest.enqueue(NewJob("noop", {}, 3), NOW)

    await wakes.beyond(before)


async def test_an_enqueue_wakes_its_own_process_at_once_and_its_own_notify_does_not_again(
    two_stores: tuple[PostgresStore, PostgresStore], pg_dsn: str
) -> None:
    worker, ingest = two_stores
    wakes = await subscribed(worker)
    before = wakes.count
    witness = await asyncpg.connect(pg_dsn)
    heard: asyncio.Queue[str] = asyncio.Queue()
    await witness.add_listener(CHANNEL, lambda *notice: heard.put_nowait(notice[3]))
    try:
        await worker.enqueue(NewJob("noop", {"from": "here"}, 3), NOW)
        assert wakes.count == before + 1  # in the same turn, without a round trip
        own = await asyncio.wait_for(heard.get(), WAIT)  # its NOTIFY reached the server
        await ingest.enqueue(NewJob("noop", {"from": "elsewhere"}, 3), NOW)
        assert await asyncio.wait_for(heard.get(), WAIT) != own

        # One listening connection hears the NOTIFYs in commit order: when the other process's
        # wakes the workers, their own was heard before it, and ignored.
        await wakes.beyond(before + 1)
        assert wakes.count == before + 2
    finally:
        await witness.close()


async def test_a_retry_let_go_elsewhere_wakes_the_idle_workers(
    two_stores: tuple[PostgresStore, PostgresStore],
) -> None:
    worker, ingest = two_stores
    await ingest.enqueue(NewJob("noop", {}, 3), NOW)
    job = await ingest.claim("ingest-side-worker", NOW, 30.0)
    assert job is not None
    wakes = await subscribed(worker)
    before = wakes.count

    await ingest.retry_later(job.lease, NOW + 5, "HTTP Error 503")

    await wakes.beyond(before)
    assert await worker.next_wakeup("worker", NOW) == NOW + 5


async def test_a_cut_listening_connection_comes_back_and_catches_up(
    two_stores: tuple[PostgresStore, PostgresStore], pg_dsn: str
) -> None:
    worker, ingest = two_stores
    wakes = await subscribed(worker)
    killer = await asyncpg.connect(pg_dsn)
    try:
        assert await killer.fetchval("SELECT pg_terminate_backend($1)", worker.listener.backend_pid)
        await ingest.enqueue(NewJob("noop", {"while": "cut"}, 3), NOW)  # nobody listens right now

        while worker.listener.subscriptions < 2:
            await wakes.beyond(wakes.count)
    finally:
        await killer.close()
    after_reconnect = wakes.count

    await ingest.enqueue(NewJob("noop", {"after": "cut"}, 3), NOW)

    await wakes.beyond(after_reconnect)
    assert worker.listener.subscriptions == 2


async def test_a_cancel_of_a_row_another_process_holds_makes_that_process_check_its_leases(
    two_stores: tuple[PostgresStore, PostgresStore],
) -> None:
    worker, ingest = two_stores
    checks = Wakes()
    worker.on_cancel(checks)
    await checks.beyond(0)  # the catch-up check of subscribing
    job_id = await ingest.enqueue(NewJob("noop", {}, 3, requester=7), NOW)
    assert job_id is not None
    held = await worker.claim("worker-1", NOW, 30.0)
    assert held is not None
    before = checks.count

    cancelled = await ingest.cancel_job(job_id)

    assert cancelled is not None
    assert cancelled.running
    await checks.beyond(before)
    assert await worker.cancel_asked([held.lease]) == [held.lease]


async def test_a_quick_row_enqueued_elsewhere_wakes_the_quick_lane_and_an_ordinary_one_does_not(
    two_stores: tuple[PostgresStore, PostgresStore],
) -> None:
    worker, ingest = two_stores
    quick = Wakes()
    worker.on_quick_work(quick)
    wakes = await subscribed(worker)  # with the catch-up wake of both
    before_quick, before = quick.count, wakes.count

    await ingest.enqueue(NewJob("noop", {}, 3), NOW)
    await wakes.beyond(before)
    assert quick.count == before_quick
    await ingest.enqueue(NewJob("noop", {}, 3, quick=True), NOW)

    await quick.beyond(before_quick)
