"""The PostgreSQL store beyond the contract: many processes (store instances) on one database,
claims batched into one round trip, per-node blob bytes, and databases it must refuse."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from adapters.postgres import PostgresStore
from adapters.postgres.jobs import SINGLETON_LOCKS
from adapters.postgres.schema import MIGRATIONS, VERSIONS_TABLE
from adapters.system.clock import SystemClock
from ports.blobs import BlobRecord
from ports.errors import StoreRefused
from ports.jobs import NewJob, SingletonGuard

NOW = 1_700_000_000.0
LEASE = 30.0


async def fill(store: PostgresStore, count: int) -> list[int]:
    ids = []
    for n in range(count):
        job_id = await store.enqueue(NewJob("noop", {"n": n}, 3), NOW)
        assert job_id is not None
        ids.append(job_id)
    return ids


async def test_workers_of_two_processes_claiming_at_once_never_share_a_row(
    two_stores: tuple[PostgresStore, PostgresStore],
) -> None:
    ids = await fill(two_stores[0], 120)

    async def drain(store: PostgresStore, worker: str) -> list[int]:
        taken = []
        while (job := await store.claim(worker, NOW, LEASE)) is not None:
            taken.append(job.id)
            assert await store.complete(job.lease)
        return taken

    results = await asyncio.gather(*(drain(s, f"{s._node}-w{n}") for s in two_stores for n in range(3)))

    claimed = [job_id for taken in results for job_id in taken]
    assert sorted(claimed) == ids
    assert len(set(claimed)) == len(claimed)


async def test_concurrent_claims_of_one_process_share_one_round_trip(
    two_stores: tuple[PostgresStore, PostgresStore],
) -> None:
    store, _ = two_stores
    ids = await fill(store, 6)
    calls: list[int] = []
    fetch = store._claims_db.fetch

    async def counting(sql: str, *args: object) -> list[asyncpg.Record]:
        calls.append(1)
        return await fetch(sql, *args)

    store._claims_db.fetch = counting  # type: ignore[method-assign]

    jobs = await asyncio.gather(*(store.claim("proc", NOW, LEASE) for _ in range(4)))

    assert [job.id for job in jobs if job is not None] == ids[:4]
    assert len(calls) == 1


async def test_a_claim_goes_through_while_enqueues_hold_every_pooled_connection(pg_dsn: str) -> None:
    store = await PostgresStore.open(pg_dsn, node="node-a", pool_size=1, clock=SystemClock())
    blocker = await asyncpg.connect(pg_dsn)
    try:
        [job_id] = await fill(store, 1)
        # A singleton enqueue waits on its advisory lock inside a transaction, on the pool's only
        # connection, for as long as another session holds that lock.
        await blocker.execute("SELECT pg_advisory_lock($1, hashtext('tick'))", SINGLETON_LOCKS)
        waiting = asyncio.ensure_future(store.enqueue(NewJob("tick", {}, 1), NOW, SingletonGuard()))
        while not await blocker.fetchval(_WAITS_FOR_LOCK):  # noqa: ASYNC110 - the server's state
            await asyncio.sleep(0.01)

        job = await asyncio.wait_for(store.claim("proc", NOW, LEASE), 20.0)

        assert job is not None
        assert job.id == job_id
        assert not waiting.done()
        await blocker.execute("SELECT pg_advisory_unlock_all()")
        assert await asyncio.wait_for(waiting, 20.0) is not None
    finally:
        await blocker.close()
        await store.close()


_WAITS_FOR_LOCK = "SELECT count(*) > 0 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"


async def test_a_claim_whose_caller_left_gives_its_row_back(
    two_stores: tuple[PostgresStore, PostgresStore],
) -> None:
    store, _ = two_stores
    [job_id] = await fill(store, 1)

    claiming = asyncio.ensure_future(store.claim("proc", NOW, LEASE))
    await asyncio.sleep(0)  # the batch is on its way
    claiming.cancel()
    with pytest.raises(asyncio.CancelledError):
        await claiming
    await store._claims.close()

    again = await store.claim("other", NOW, LEASE)
    assert again is not None
    assert (again.id, again.attempts) == (job_id, 1)  # the orphaned claim's attempt was refunded


def record(**changes: object) -> BlobRecord:
    fields: dict[str, object] = {
        "key": "youtube:abc:18",
        "file_name": "a.mp4",
        "size": 10,
        "duration": 3.0,
        "width": 640,
        "height": 360,
        "file_id": None,
        "file_unique_id": None,
        "created_at": NOW,
        "last_used": NOW,
    }
    fields.update(changes)
    return BlobRecord(**fields)  # type: ignore[arg-type]


async def test_unsent_bytes_of_one_worker_are_invisible_to_the_others(
    two_stores: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = two_stores
    await a.put_blob(record())

    assert await b.blob("youtube:abc:18") is None
    assert await b.all_blobs() == []
    await b.forget_blob("youtube:abc:18")  # a sweep on b that thinks the bytes vanished
    assert await a.blob("youtube:abc:18") == record()


async def test_a_file_id_recorded_by_one_worker_answers_on_every_other(
    two_stores: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = two_stores
    await a.put_blob(record())
    await a.set_file_id("youtube:abc:18", "BAAC", "AgAD", NOW + 5)

    seen = await b.blob("youtube:abc:18")

    assert seen == record(file_name=None, size=None, file_id="BAAC", file_unique_id="AgAD", last_used=NOW + 5)
    assert await a.detach_bytes("youtube:abc:18", "a.mp4")
    assert (await b.blob("youtube:abc:18")) == seen  # the shared row outlives a's bytes


async def test_the_row_stays_while_another_worker_still_has_bytes(
    two_stores: tuple[PostgresStore, PostgresStore],
) -> None:
    a, b = two_stores
    await a.put_blob(record())
    await b.put_blob(record(file_name="b.mp4"))

    assert await a.detach_bytes("youtube:abc:18", "a.mp4")
    assert not await a.detach_bytes("youtube:abc:18", "a.mp4")  # a second release never unlinks

    assert await a.blob("youtube:abc:18") is None
    assert await b.blob("youtube:abc:18") == record(file_name="b.mp4")
    assert await b.detach_bytes("youtube:abc:18", "b.mp4")
    assert await b.all_blobs() == []


async def test_a_database_holding_another_programs_tables_is_refused_untouched(pg_dsn: str) -> None:
    other = await asyncpg.connect(pg_dsn)
    try:
        await other.execute("CREATE TABLE jobs (id serial PRIMARY KEY, what text)")
        with pytest.raises(StoreRefused, match=r"tables vidrelay did not create \(jobs\)"):
            await PostgresStore.open(pg_dsn, node="n", clock=SystemClock())
        tables = {
            r[0] for r in await other.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        }
    finally:
        await other.close()
    assert tables == {"jobs"}


async def test_a_database_of_a_newer_release_is_refused(pg_dsn: str) -> None:
    store = await PostgresStore.open(pg_dsn, node="n", clock=SystemClock())
    await store.close()
    other = await asyncpg.connect(pg_dsn)
    try:
        await other.execute(
            f"INSERT INTO {VERSIONS_TABLE} (version, name) VALUES ($1, 'future')", len(MIGRATIONS) + 1
        )
    finally:
        await other.close()

    with pytest.raises(StoreRefused, match="schema version"):
        await PostgresStore.open(pg_dsn, node="n", clock=SystemClock())
