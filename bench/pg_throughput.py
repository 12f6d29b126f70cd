"""End-to-end queue throughput on PostgreSQL: vidrelay's Postgres store + Engine against pgqueuer
and procrastinate.

    python bench/pg_throughput.py [--jobs 20000] [--producers 32] [--concurrency 4] [--rounds 3] [--quick]

One throwaway local server (testkit.postgres) with the durable settings spelled out — fsync on,
synchronous_commit on, full_page_writes on — serves every system; each measurement gets a fresh
database and fresh processes, and the rounds interleave the systems so a noisy disk hurts them
alike; medians are printed.

Steady rounds: a queue table's indexes fill with the entries of rows already claimed or done,
which every claim (and, for vidrelay, every enqueue's turn) walks past until a vacuum clears
them. With the server's default autovacuum_naptime (1 min) a 20,000-job measurement either met a
vacuum or did not: vidrelay's rounds were 408, 979 and 395 jobs/s in one run. The bench's server
vacuums a table as soon as it qualifies (autovacuum_naptime 1 s; rounds 1220, 1253, 1391), and
checkpoints only between measurements (max_wal_size and checkpoint_timeout raised, a CHECKPOINT
after each fresh database): neither changes what a commit guarantees, and every system gets the
same server. One measurement before the rounds warms the fresh server up and is not counted
(`warm_up`). The figures line carries each system's spread, the largest
distance of a round from its median (`vidrelay_spread=0.11`: ±11 %).

Every system does the same work:
- N jobs with a no-op handler, enqueued one call per job by P producer coroutines running at the
  same time as the consumers (vidrelay: `engine.submit`, as the bot's handlers do; pgqueuer:
  `Queries.enqueue`; procrastinate: `Task.defer_async`), over a pool of 8 connections.
- C jobs at most running at once in a consumer process (vidrelay: Engine(concurrency=C);
  pgqueuer: max_concurrent_tasks=C with the largest batch it allows, C // 2; procrastinate:
  run_worker_async(concurrency=C)).
- The clock runs from the start signal until the database shows every job completed (vidrelay:
  its row deleted; pgqueuer: its row gone from the queue table, which it does in its batched
  acknowledgement; procrastinate: its status 'succeeded'), polled every 5 ms the same way for all.
The main figure has producers and consumers in one process (`vidrelay run --role all`); the
"4 workers" lines run one producer process and 4 consumer processes (one ingest, 4 workers).
Each consumer process reports how many handler runs it saw; their sum must be N.
The figures line: `pg_throughput: ratio_vs_pgqueuer=X.XX ratio_vs_procrastinate=X.XX
vidrelay_jobs_s=N ... vidrelay_scaled_jobs_s=N` (the last with --workers consumer processes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import harness

SYSTEMS = ("vidrelay", "pgqueuer", "procrastinate")
_POOL = 8
QUEUE_SERVER = {"autovacuum_naptime": "1s", "max_wal_size": "16GB", "checkpoint_timeout": "1h"}
_POLL_SECONDS = 0.005

bench = harness.Bench("pg_throughput", __doc__)
bench.size("--jobs", 20_000, quick=200, help="no-op jobs per measurement")
bench.size("--rounds", 3, quick=1, help="interleaved rounds")
bench.size("--workers", 4, quick=2, help="consumer processes of the scale-out figure")
bench.parser.add_argument("--producers", type=int, default=32)
bench.parser.add_argument(
    "--concurrency", type=int, default=4, help="jobs running at once per consumer process"
)
bench.parser.add_argument("--systems", default=",".join(SYSTEMS))
bench.parser.add_argument(
    "--scale-systems", default="vidrelay", help="systems measured with --workers processes too"
)
bench.parser.add_argument("--child", choices=SYSTEMS, help=argparse.SUPPRESS)
bench.parser.add_argument("--dsn", help=argparse.SUPPRESS)
bench.parser.add_argument("--produce", type=int, default=0, help=argparse.SUPPRESS)
bench.parser.add_argument("--consume", action="store_true", help=argparse.SUPPRESS)


def main() -> None:
    args = bench.parse()
    if args.child:
        asyncio.run(run_child(args))
        return
    bench.run(run_parent, args)


# The parent: fresh database and processes per measurement, interleaved rounds ------------------


@dataclass(frozen=True)
class Result:
    label: str
    jobs_per_second: float


def run_parent(args: argparse.Namespace) -> None:
    from testkit.postgres import DURABLE, throwaway_postgres

    systems = [s for s in args.systems.split(",") if s]
    with throwaway_postgres(DURABLE | QUEUE_SERVER) as server:
        facts = asyncio.run(harness.postgres_facts(server.dsn()))
        bench.setup(
            libraries=("asyncpg", "pgqueuer", "procrastinate"),
            **facts,
            server=server.how.split()[0],
            producers=args.producers,
            concurrency=args.concurrency,
        )
        one: dict[str, list[float]] = {s: [] for s in systems}
        many: dict[str, list[float]] = {s: [] for s in systems}
        labels: dict[str, str] = {}
        warm_up(server, args, systems[0])
        for round_number in range(args.rounds):
            for system in systems:
                scaled = system in args.scale_systems.split(",")
                for workers, results in ((1, one), (args.workers, many))[: 2 if scaled else 1]:
                    dsn = asyncio.run(_fresh_database(server, f"{system}_{round_number}_{workers}"))
                    label, rate = asyncio.run(measure(system, dsn, args, workers))
                    labels[system] = label
                    results[system].append(rate)
                    print(f"#   round {round_number + 1}: {system} x{workers} {rate:.0f} jobs/s", flush=True)
    medians = {s: statistics.median(rs) for s, rs in one.items()}
    figures: dict[str, float] = {}
    for peer in ("pgqueuer", "procrastinate"):
        if "vidrelay" in medians and peer in medians:
            figures[f"ratio_vs_{peer}"] = medians["vidrelay"] / medians[peer]
    for system in systems:
        spread = max(abs(rate / medians[system] - 1) for rate in one[system])
        print(f"{labels[system]}: {medians[system]:.0f} jobs/s (rounds within ±{spread:.0%} of it)")
        figures[f"{system}_jobs_s"] = medians[system]
        figures[f"{system}_spread"] = spread
    for system in (s for s in systems if many[s]):
        scaled = statistics.median(many[system])
        print(
            f"# {args.workers} workers ({args.workers} consumer processes + 1 producer): {system}"
            f" {scaled:.0f} jobs/s (x{scaled / medians[system]:.2f} of one process)"
        )
        figures[f"{system}_scaled_jobs_s"] = scaled
    bench.figures(**figures)


def warm_up(server: Any, args: argparse.Namespace, system: str) -> None:
    """One measurement before the rounds, not counted. Without it the first round was the slowest
    in three runs out of three (vidrelay 1,177, 1,832, 1,663 jobs/s against 1,438-2,643 in the
    later rounds); a fresh server creates its WAL files and fills its caches then. With it, one
    run: every system's rounds within ±13 %."""
    dsn = asyncio.run(_fresh_database(server, "warm_up"))
    _, rate = asyncio.run(measure(system, dsn, args, 1))
    print(f"#   warm-up, not counted: {system} x1 {rate:.0f} jobs/s", flush=True)


async def _fresh_database(server: Any, name: str) -> str:
    import asyncpg

    connection = await asyncpg.connect(server.dsn())
    try:
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await connection.execute(f'CREATE DATABASE "{name}"')
        await connection.execute("CHECKPOINT")  # the last measurement's WAL flushed before this one
    finally:
        await connection.close()
    return server.dsn(name)


async def measure(system: str, dsn: str, args: argparse.Namespace, workers: int) -> tuple[str, float]:
    """Start the processes, give the start signal, poll until every job is completed."""
    import asyncpg

    base = [sys.executable, __file__, "--child", system, "--dsn", dsn, "--concurrency", str(args.concurrency)]
    base += ["--producers", str(args.producers)]
    if workers == 1:
        argvs = [[*base, "--consume", "--produce", str(args.jobs)]]
    else:
        argvs = [[*base, "--consume"] for _ in range(workers)] + [[*base, "--produce", str(args.jobs)]]
    children = [
        await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        for argv in argvs
    ]
    probe = await asyncpg.connect(dsn)
    try:
        for child in children:
            await _expect(child, "ready")
        started = time.perf_counter()
        for child in children:
            _tell(child, "go")
        await _expect(children[-1], "produced")
        while await probe.fetchval(REMAINING[system]) > 0:  # noqa: ASYNC110 - the same probe for all
            await asyncio.sleep(_POLL_SECONDS)
        seconds = time.perf_counter() - started
    finally:
        await probe.close()
    reports = []
    for child in children:
        _tell(child, "stop")
        out, err = await child.communicate()
        if child.returncode != 0:
            tail = err.decode()[-3000:]
            raise harness.BenchFailed(f"{system} child exited with {child.returncode}:\n{tail}")
        reports.append(json.loads(out.decode().strip().splitlines()[-1]))
    executed = sum(r["executed"] for r in reports)
    bench.expect(executed == args.jobs, f"{system}: {executed} handler runs for {args.jobs} jobs")
    label = next(r["label"] for r in reports if r.get("label"))
    return label, args.jobs / seconds


async def _expect(child: asyncio.subprocess.Process, word: str) -> None:
    assert child.stdout is not None
    line = await asyncio.wait_for(child.stdout.readline(), 120)
    if line.decode().strip() != word:
        err = await child.stderr.read() if child.stderr else b""
        raise harness.BenchFailed(f"expected {word!r} from a child, got {line!r}:\n{err.decode()[-3000:]}")


def _tell(child: asyncio.subprocess.Process, word: str) -> None:
    assert child.stdin is not None
    child.stdin.write(f"{word}\n".encode())


REMAINING = {
    "vidrelay": "SELECT count(*) FROM jobs",
    "pgqueuer": "SELECT count(*) FROM pgqueuer",
    "procrastinate": "SELECT count(*) FROM procrastinate_jobs WHERE status <> 'succeeded'",
}


# A child: a consumer, a producer, or both ---------------------------------------------------------


@dataclass
class Side:
    """What a child process runs between "go" and "stop"."""

    label: str
    produce_one: Callable[[int], Awaitable[None]] | None
    start_consumers: Callable[[], Awaitable[None]] | None
    stop: Callable[[], Awaitable[None]]
    executed: list[int]


async def run_child(args: argparse.Namespace) -> None:
    side = await SETUPS[args.child](args)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    print("ready", flush=True)
    await reader.readline()
    if side.start_consumers is not None:
        await side.start_consumers()
    if args.produce:
        produce_one = side.produce_one
        assert produce_one is not None

        async def producer(first: int) -> None:
            for n in range(first, args.produce, args.producers):
                await produce_one(n)

        await asyncio.gather(*(producer(p) for p in range(args.producers)))
        print("produced", flush=True)
    await reader.readline()
    await side.stop()
    print(json.dumps({"label": side.label if args.consume else "", "executed": side.executed[0]}), flush=True)


# vidrelay ---------------------------------------------------------------------------------------------


async def setup_vidrelay(args: argparse.Namespace) -> Side:
    import logging
    import random
    import uuid

    from returns.result import Success

    from adapters.postgres import PostgresStore
    from adapters.system.clock import SystemClock
    from core.jobs.context import JobContext
    from core.jobs.engine import Engine, EngineConfig
    from core.jobs.outcome import JobOutcome
    from core.jobs.registry import JobRegistry, JobType

    logging.getLogger("vidrelay").setLevel(logging.ERROR)
    executed = [0]

    async def noop(_: JobContext) -> JobOutcome:
        executed[0] += 1
        return Success(None)

    clock = SystemClock()
    store = await PostgresStore.open(args.dsn, node=f"bench-{os.getpid()}", pool_size=_POOL, clock=clock)
    registry = JobRegistry([JobType("noop", noop, timeout_seconds=60.0)])
    config = EngineConfig(concurrency=args.concurrency, sole_instance=False)
    engine = Engine(store, clock, registry, config, random.random, worker_id=uuid.uuid4().hex)

    async def start() -> None:
        if args.consume:
            store.on_work(engine.wake)
            await engine.start()

    async def produce_one(n: int) -> None:
        await engine.submit("noop", {"n": n})

    async def stop() -> None:
        if args.consume:
            await engine.stop(1.0)
        await store.close()

    return Side("vidrelay PostgresStore + Engine (asyncpg)", produce_one, start, stop, executed)


# pgqueuer ---------------------------------------------------------------------------------------------


async def setup_pgqueuer(args: argparse.Namespace) -> Side:
    import asyncpg
    from pgqueuer import PgQueuer
    from pgqueuer.db import AsyncpgDriver, AsyncpgPoolDriver
    from pgqueuer.queries import Queries

    executed = [0]
    pool = await asyncpg.create_pool(args.dsn, min_size=_POOL, max_size=_POOL)
    producer = Queries(AsyncpgPoolDriver(pool))
    await _once(args, producer.install)
    runner: list[asyncio.Task[None]] = []
    queuer: list[PgQueuer] = []

    async def start() -> None:
        if not args.consume:
            return
        pgq = PgQueuer(AsyncpgDriver(await asyncpg.connect(args.dsn)))

        @pgq.entrypoint("noop")
        async def noop(_: object) -> None:
            executed[0] += 1

        queuer.append(pgq)
        batch = max(1, args.concurrency // 2)  # pgqueuer refuses a cap below twice the batch size
        runner.append(asyncio.create_task(pgq.run(batch_size=batch, max_concurrent_tasks=args.concurrency)))

    async def produce_one(n: int) -> None:
        await producer.enqueue("noop", str(n).encode())

    async def stop() -> None:
        for pgq in queuer:
            pgq.shutdown.set()
        await asyncio.gather(*runner)
        await pool.close()

    label = f"pgqueuer {_version('pgqueuer')} (asyncpg, batch {max(1, args.concurrency // 2)})"
    return Side(label, produce_one, start, stop, executed)


# procrastinate ----------------------------------------------------------------------------------------


async def setup_procrastinate(args: argparse.Namespace) -> Side:
    import procrastinate

    executed = [0]
    app = procrastinate.App(
        connector=procrastinate.PsycopgConnector(conninfo=args.dsn, min_size=_POOL, max_size=_POOL)
    )

    @app.task(name="noop")
    async def noop(n: int) -> None:
        executed[0] += 1

    await app.open_async()
    await _once(args, app.schema_manager.apply_schema_async)
    runner: list[asyncio.Task[None]] = []

    async def start() -> None:
        if args.consume:
            worker = app.run_worker_async(concurrency=args.concurrency, install_signal_handlers=False)
            runner.append(asyncio.create_task(worker))

    async def produce_one(n: int) -> None:
        await noop.defer_async(n=n)

    async def stop() -> None:
        for task in runner:
            task.cancel()
        await asyncio.gather(*runner, return_exceptions=True)
        await app.close_async()

    label = f"procrastinate {_version('procrastinate')} (psycopg 3)"
    return Side(label, produce_one, start, stop, executed)


async def _once(args: argparse.Namespace, install: Callable[[], Awaitable[None]]) -> None:
    """The schema is installed by the process that produces (there is exactly one)."""
    if args.produce:
        await install()


SETUPS: dict[str, Callable[[argparse.Namespace], Awaitable[Side]]] = {
    "vidrelay": setup_vidrelay,
    "pgqueuer": setup_pgqueuer,
    "procrastinate": setup_procrastinate,
}


def _version(distribution: str) -> str:
    from importlib.metadata import version

    return version(distribution)


if __name__ == "__main__":
    main()
