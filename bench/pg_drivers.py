"""Which PostgreSQL driver for the store: asyncpg against psycopg 3 (async), on the store's own statements.

    python bench/pg_drivers.py [--rows 6000] [--rounds 3] [--quick]

One throwaway local server with the durable settings (fsync on, synchronous_commit on), a jobs
table shaped like the store's, and the three things the store does most:
- enqueue-one: 32 coroutines insert one row per statement (the bot's handlers), over a pool of 8;
- enqueue-batch: one INSERT ... SELECT FROM unnest(arrays) per 500 rows (a fan-out, a retry-all);
- claim-complete: 3 workers, each on its own connection, claim up to 4 rows with
  FOR UPDATE SKIP LOCKED (write-ahead attempt, token and lease in the one UPDATE) and delete them
  naming the token, until the table is empty.
Each measurement runs in a fresh process; rounds interleave the drivers; medians are printed
(throughput, and the client process's CPU per row), then `asyncpg_vs_psycopg=X.XX` per workload,
and the figures line `pg_drivers: enqueue_one_speed=X.XX enqueue_one_cpu=X.XX ...`: per workload,
asyncpg's throughput over psycopg's (`_speed`) and psycopg's CPU per row over asyncpg's (`_cpu`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import harness

bench = harness.Bench("pg_drivers", __doc__)
bench.size("--rows", 6000, quick=500, help="rows per run (a multiple of the 500-row batch)")
bench.size("--rounds", 3, quick=1, help="interleaved rounds")
BATCH = 500
DRIVERS = ("asyncpg", "psycopg")
WORKLOADS = ("enqueue-one", "enqueue-batch", "claim-complete")
_TABLE = """
    DROP TABLE IF EXISTS bench_jobs;
    CREATE TABLE bench_jobs (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name text NOT NULL, payload jsonb NOT NULL, attempts int NOT NULL DEFAULT 0,
        max_attempts int NOT NULL, available_at double precision NOT NULL, key text NOT NULL DEFAULT '',
        owner_id bigint, claimed_by text, token bigint NOT NULL DEFAULT 0, lease_until double precision,
        created_at double precision NOT NULL
    );
    CREATE INDEX bench_jobs_due ON bench_jobs (available_at, id);
"""
_INSERT_ONE = """
    INSERT INTO bench_jobs (name, payload, max_attempts, available_at, created_at)
    VALUES ($1, $2::jsonb, 3, $3, $3) RETURNING id
"""
_INSERT_MANY = """
    INSERT INTO bench_jobs (name, payload, max_attempts, available_at, created_at)
    SELECT n, p::jsonb, 3, $3, $3 FROM unnest($1::text[], $2::text[]) AS t(n, p)
"""
_CLAIM = """
    UPDATE bench_jobs AS j SET attempts = attempts + 1, token = token + 1, claimed_by = $1, lease_until = $2
    FROM (
        SELECT id FROM bench_jobs WHERE available_at <= $3 AND (lease_until IS NULL OR lease_until <= $3)
        ORDER BY available_at, id LIMIT $4 FOR UPDATE SKIP LOCKED
    ) AS due
    WHERE j.id = due.id
    RETURNING j.id, j.token, j.payload
"""
_COMPLETE = "DELETE FROM bench_jobs WHERE id = ANY($1::bigint[]) AND token = ANY($2::bigint[])"


class Driver:
    """The few calls the workloads make, the same for both libraries."""

    async def connect(self, dsn: str) -> Any: ...
    async def pool(self, dsn: str, size: int) -> Any: ...
    async def execute(self, conn: Any, sql: str, *args: object) -> list[tuple[Any, ...]]: ...
    async def on_pool(self, pool: Any, sql: str, *args: object) -> list[tuple[Any, ...]]: ...
    async def close(self, thing: Any) -> None: ...


class Asyncpg(Driver):
    async def connect(self, dsn: str) -> Any:
        import asyncpg

        return await asyncpg.connect(dsn)

    async def pool(self, dsn: str, size: int) -> Any:
        import asyncpg

        async def keep_session(_: object) -> None:
            """The store keeps no session state on pooled connections: skip asyncpg's reset query
            (a round trip per release) as psycopg's pool does."""

        return await asyncpg.create_pool(dsn, min_size=size, max_size=size, reset=keep_session)

    async def execute(self, conn: Any, sql: str, *args: object) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in await conn.fetch(sql, *args)]

    async def on_pool(self, pool: Any, sql: str, *args: object) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in await pool.fetch(sql, *args)]

    async def close(self, thing: Any) -> None:
        await thing.close()


class Psycopg(Driver):
    @staticmethod
    def _sql(sql: str) -> str:
        for n in range(9, 0, -1):
            sql = sql.replace(f"${n}", f"%(p{n})s")
        return sql

    async def connect(self, dsn: str) -> Any:
        import psycopg

        return await psycopg.AsyncConnection.connect(dsn, autocommit=True)

    async def pool(self, dsn: str, size: int) -> Any:
        from psycopg_pool import AsyncConnectionPool

        pool = AsyncConnectionPool(dsn, min_size=size, max_size=size, kwargs={"autocommit": True}, open=False)
        await pool.open(wait=True)
        return pool

    async def execute(self, conn: Any, sql: str, *args: object) -> list[tuple[Any, ...]]:
        cursor = await conn.execute(self._sql(sql), {f"p{n}": arg for n, arg in enumerate(args, 1)})
        return list(await cursor.fetchall()) if cursor.description else []

    async def on_pool(self, pool: Any, sql: str, *args: object) -> list[tuple[Any, ...]]:
        async with pool.connection() as conn:
            return await self.execute(conn, sql, *args)

    async def close(self, thing: Any) -> None:
        await thing.close()


async def enqueue_one(driver: Driver, dsn: str, rows: int) -> float:
    pool = await driver.pool(dsn, 8)
    payload = json.dumps({"chat_id": 7, "url": "https://example.com/v"})

    async def produce(first: int) -> None:
        for _ in range(first, rows, 32):
            await driver.on_pool(pool, _INSERT_ONE, "noop", payload, time.time())

    started = time.perf_counter()
    await asyncio.gather(*(produce(p) for p in range(32)))
    seconds = time.perf_counter() - started
    await driver.close(pool)
    return rows / seconds


async def enqueue_batch(driver: Driver, dsn: str, rows: int) -> float:
    conn = await driver.connect(dsn)
    names, payloads = ["noop"] * BATCH, [json.dumps({"n": n}) for n in range(BATCH)]
    started = time.perf_counter()
    for _ in range(rows // BATCH):
        await driver.execute(conn, _INSERT_MANY, names, payloads, time.time())
    seconds = time.perf_counter() - started
    await driver.close(conn)
    return rows / seconds


async def claim_complete(driver: Driver, dsn: str, rows: int) -> float:
    conn = await driver.connect(dsn)
    names, payloads = ["noop"] * rows, [json.dumps({"n": n}) for n in range(rows)]
    await driver.execute(conn, _INSERT_MANY, names, payloads, 0.0)
    done = [0]

    async def work(worker: str) -> None:
        own = await driver.connect(dsn)
        while True:
            claimed = await driver.execute(own, _CLAIM, worker, time.time() + 30, time.time(), 4)
            if not claimed:
                break
            await driver.execute(own, _COMPLETE, [r[0] for r in claimed], [r[1] for r in claimed])
            done[0] += len(claimed)
        await driver.close(own)

    started = time.perf_counter()
    await asyncio.gather(*(work(f"w{n}") for n in range(3)))
    seconds = time.perf_counter() - started
    await driver.close(conn)
    assert done[0] == rows, done
    return rows / seconds


RUNS: dict[str, Callable[[Driver, str, int], Awaitable[float]]] = {
    "enqueue-one": enqueue_one,
    "enqueue-batch": enqueue_batch,
    "claim-complete": claim_complete,
}


async def child(driver_name: str, workload: str, dsn: str, rows: int) -> tuple[float, float]:
    """(rows per second, client CPU microseconds per row): the CPU figure is what the driver costs
    the bot's process, free of the disk's fsync latency that dominates the first."""
    driver: Driver = Asyncpg() if driver_name == "asyncpg" else Psycopg()
    conn = await driver.connect(dsn)
    for statement in _TABLE.split(";"):
        if statement.strip():
            await driver.execute(conn, statement)
    await driver.execute(conn, "CHECKPOINT")
    await driver.close(conn)
    cpu = time.process_time()
    rate = await RUNS[workload](driver, dsn, rows)
    cpu_per_row = (time.process_time() - cpu) / rows * 1e6
    conn = await driver.connect(dsn)
    [(left,)] = await driver.execute(conn, "SELECT count(*) FROM bench_jobs")
    await driver.close(conn)
    expected = 0 if workload == "claim-complete" else rows
    if left != expected:
        raise harness.BenchFailed(f"{workload} on {driver_name} left {left} rows, not {expected}")
    return rate, cpu_per_row


def parent(args: argparse.Namespace) -> None:
    from testkit.postgres import DURABLE, throwaway_postgres

    rows, rounds = args.rows, args.rounds
    bench.expect(rows % BATCH == 0, f"--rows must be a multiple of {BATCH}")
    with throwaway_postgres(DURABLE) as server:
        facts = asyncio.run(harness.postgres_facts(server.dsn()))
        bench.setup(libraries=DRIVERS, **facts, server=server.how.split()[0])
        results: dict[tuple[str, str], list[tuple[float, float]]] = {
            (d, w): [] for d in DRIVERS for w in WORKLOADS
        }
        for _ in range(rounds):
            for workload in WORKLOADS:
                for driver in DRIVERS:
                    argv = [sys.executable, __file__, "--child", driver, workload, server.dsn(), str(rows)]
                    done = subprocess.run(argv, capture_output=True, text=True, check=False)
                    out = harness.child_result(done, f"the {driver} {workload} child")
                    rate, cpu = json.loads(out.strip().splitlines()[-1])
                    results[driver, workload].append((rate, cpu))
    figures: dict[str, float] = {}
    for workload in WORKLOADS:
        rates = {d: statistics.median(r for r, _ in results[d, workload]) for d in DRIVERS}
        cpus = {d: statistics.median(c for _, c in results[d, workload]) for d in DRIVERS}
        for driver in DRIVERS:
            print(
                f"{workload}: {driver} {_version(driver)} {rates[driver]:.0f} rows/s,"
                f" {cpus[driver]:.0f} us client CPU/row"
            )
        print(
            f"{workload}: asyncpg_vs_psycopg={rates['asyncpg'] / rates['psycopg']:.2f} (throughput),"
            f" {cpus['psycopg'] / cpus['asyncpg']:.2f} (CPU)"
        )
        name = workload.replace("-", "_")
        figures[f"{name}_speed"] = rates["asyncpg"] / rates["psycopg"]
        figures[f"{name}_cpu"] = cpus["psycopg"] / cpus["asyncpg"]
    bench.figures(**figures)


def _version(distribution: str) -> str:
    from importlib.metadata import version

    return version(distribution)


def main(argv: Sequence[str]) -> None:
    if argv and argv[0] == "--child":
        driver, workload, dsn, rows = argv[1:5]
        print(json.dumps(asyncio.run(child(driver, workload, dsn, int(rows)))))
        return
    bench.run(parent, bench.parse(list(argv)))


if __name__ == "__main__":
    main(sys.argv[1:])
