"""End-to-end queue throughput: vidrelay's SQLite store + Engine against huey and persist-queue.

    python bench/queue_throughput.py [--jobs 20000] [--producers 32] [--rounds 3] [--quick]

Every system does the same work on a file in the same folder (same disk):
- N jobs with a no-op handler, enqueued one call per job by P producers running at the same
  time as the consumers (vidrelay: coroutines calling `engine.submit`, as the bot's handlers do;
  huey and persist-queue: threads, their native producers). No bulk insert anywhere.
- 3 consumers (vidrelay: Engine(concurrency=3); huey: its own consumer with 3 worker threads;
  persist-queue: 3 threads running get + ack).
- A job counts as done only once its completion is committed: vidrelay after `complete()`
  returned (the row's DELETE committed), huey after the task ran (huey commits the dequeue's
  DELETE before it runs a task), persist-queue after `ack()` committed.
- The clock runs from the first enqueue until the N-th job is done.

huey and persist-queue run at their defaults, which leave SQLite at WAL with synchronous=FULL
(each commit fsynced); vidrelay runs at its default (synchronous=FULL), and once more at NORMAL
to show what the other setting would buy. Each measurement runs in a fresh child process; the
rounds interleave the systems so that a noisy disk hurts them alike; the median is reported.
The figures line: `queue_throughput: ratio_vs_huey=X.XX ratio_vs_persist_queue=X.XX
vidrelay_jobs_s=N ...`.

Why synchronous=FULL is vidrelay's default: the promise is that an accepted link is never lost,
and the bot acknowledges a link as soon as its enqueue returns. In WAL mode, NORMAL fsyncs only
at checkpoints: a commit survives the process dying (OOM, SIGKILL, a container restart) but not
a power cut or a kernel crash, which can roll back the last transactions before it, so an
acknowledged link could vanish (and a finished job run again). FULL fsyncs the WAL at every
commit. Group commit is what makes that affordable: every operation waiting when a transaction
starts shares its one fsync (the engine's workers submit a job's deletion together with their
next claim), so NORMAL buys only the factor this bench prints on the "# synchronous=NORMAL" line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import harness

SYSTEMS = ("vidrelay", "vidrelay-other-durability", "huey", "persist-queue")
bench = harness.Bench("queue_throughput", __doc__)
bench.size("--jobs", 20_000, quick=200, help="no-op jobs per measurement")
bench.size("--rounds", 3, quick=1, help="interleaved rounds")
bench.parser.add_argument(
    "--producers", type=int, default=32, help="concurrent producers (coroutines/threads)"
)
bench.parser.add_argument("--concurrency", type=int, default=3, help="consumers")
bench.parser.add_argument("--dir", type=Path, default=None, help="folder for the database files (one disk)")
bench.parser.add_argument("--skip-other-durability", action="store_true")
bench.parser.add_argument("--only", choices=SYSTEMS, help=argparse.SUPPRESS)


def main() -> None:
    args = bench.parse()
    if args.only:
        result = run_child(args)
        print(json.dumps(result), flush=True)
        return
    bench.run(run_parent, args)


# The parent: interleaved rounds, one child process per measurement -----------------------------


def run_parent(args: argparse.Namespace) -> None:
    from adapters.sqlite import DEFAULT_SYNCHRONOUS

    systems = [s for s in SYSTEMS if not (args.skip_other_durability and s == "vidrelay-other-durability")]
    bench.setup(
        libraries=("huey", "persist-queue"),
        sqlite=sqlite3.sqlite_version,
        producers=args.producers,
        consumers=args.concurrency,
    )
    results: dict[str, list[dict[str, object]]] = {s: [] for s in systems}
    with tempfile.TemporaryDirectory(prefix="vidrelay-bench-", dir=args.dir) as folder:
        print(f"# files in {folder}")
        for round_number in range(args.rounds):
            for system in systems:
                result = run_in_child(system, args, Path(folder) / f"{system}-{round_number}")
                results[system].append(result)
                print(
                    f"#   round {round_number + 1}: {system} {result['jobs_per_second']:.0f} jobs/s",
                    flush=True,
                )
    medians = {
        s: statistics.median(float(str(r["jobs_per_second"])) for r in rs) for s, rs in results.items()
    }
    for system in systems:
        print(f"{results[system][0]['label']}: {medians[system]:.0f} jobs/s")
    other = "NORMAL" if DEFAULT_SYNCHRONOUS == "FULL" else "FULL"
    durability = {}
    if "vidrelay-other-durability" in medians:
        change = medians["vidrelay-other-durability"] / medians["vidrelay"]
        print(f"# synchronous={other} instead of {DEFAULT_SYNCHRONOUS}: x{change:.2f} throughput")
        durability[f"{other.lower()}_vs_{DEFAULT_SYNCHRONOUS.lower()}"] = change
    bench.figures(
        ratio_vs_huey=medians["vidrelay"] / medians["huey"],
        ratio_vs_persist_queue=medians["vidrelay"] / medians["persist-queue"],
        vidrelay_jobs_s=medians["vidrelay"],
        huey_jobs_s=medians["huey"],
        persist_queue_jobs_s=medians["persist-queue"],
        **durability,
    )


def run_in_child(system: str, args: argparse.Namespace, folder: Path) -> dict[str, object]:
    folder.mkdir()
    argv = [sys.executable, __file__, "--only", system, "--dir", str(folder)]
    argv += [
        "--jobs",
        str(args.jobs),
        "--producers",
        str(args.producers),
        "--concurrency",
        str(args.concurrency),
    ]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    result: dict[str, object] = json.loads(harness.child_result(done, system).strip().splitlines()[-1])
    return result


def run_child(args: argparse.Namespace) -> dict[str, object]:
    folder: Path = args.dir
    if args.only == "vidrelay":
        from adapters.sqlite import DEFAULT_SYNCHRONOUS

        return asyncio.run(run_vidrelay(folder, args, DEFAULT_SYNCHRONOUS, default=True))
    if args.only == "vidrelay-other-durability":
        from adapters.sqlite import DEFAULT_SYNCHRONOUS

        other = "NORMAL" if DEFAULT_SYNCHRONOUS == "FULL" else "FULL"
        return asyncio.run(run_vidrelay(folder, args, other, default=False))
    if args.only == "huey":
        return run_huey(folder, args)
    return run_persist_queue(folder, args)


def measured(label: str, jobs: int, seconds: float, **detail: object) -> dict[str, object]:
    return {"label": label, "jobs_per_second": jobs / seconds, "seconds": seconds, **detail}


# vidrelay: the real Engine over the real SQLite store ---------------------------------------------


async def run_vidrelay(
    folder: Path, args: argparse.Namespace, synchronous: str, *, default: bool
) -> dict[str, object]:
    from returns.result import Success

    from adapters.sqlite import SqliteStore
    from adapters.system.clock import SystemClock
    from core.jobs.context import JobContext
    from core.jobs.engine import Engine, EngineConfig
    from core.jobs.outcome import JobOutcome
    from core.jobs.registry import JobRegistry, JobType
    from ports.jobs import Lease

    logging.getLogger("vidrelay").setLevel(logging.ERROR)

    class CountingStore(SqliteStore):
        """Counts a job done once its row's deletion is committed (complete() returned)."""

        target = args.jobs
        completed = 0
        all_done = asyncio.Event()

        async def complete(self, lease: Lease) -> bool:
            landed = await super().complete(lease)
            CountingStore.completed += landed
            if CountingStore.completed == CountingStore.target:
                CountingStore.all_done.set()
            return landed

    async def noop(_: JobContext) -> JobOutcome:
        return Success(None)

    store = await CountingStore.open(folder / "vidrelay.db", synchronous=synchronous)
    registry = JobRegistry([JobType("noop", noop, timeout_seconds=60.0)])
    config = EngineConfig(concurrency=args.concurrency)
    engine = Engine(store, SystemClock(), registry, config, random.random, worker_id="bench")
    await engine.start()

    async def produce(first: int) -> None:
        for n in range(first, args.jobs, args.producers):
            await engine.submit("noop", {"n": n})

    started = time.perf_counter()
    await asyncio.gather(*(produce(p) for p in range(args.producers)))
    await CountingStore.all_done.wait()
    seconds = time.perf_counter() - started

    await engine.stop(1.0)
    counts = await store.counts()
    transactions = store.transactions
    await store.close()
    assert (counts.waiting, counts.running, counts.failed) == (0, 0, 0), counts
    tag = ", the default" if default else ""
    label = f"vidrelay SqliteStore + Engine (WAL, synchronous={synchronous}{tag})"
    return measured(label, args.jobs, seconds, transactions=transactions)


# huey: SqliteHuey with its own consumer ------------------------------------------------------------------


def run_huey(folder: Path, args: argparse.Namespace) -> dict[str, object]:
    from huey import SqliteHuey

    logging.getLogger("huey").setLevel(logging.ERROR)
    huey = SqliteHuey(name="bench", filename=str(folder / "huey.db"), results=False, immediate=False)
    synchronous = huey.storage.conn.execute("PRAGMA synchronous").fetchone()[0]
    lock, done, all_done = threading.Lock(), [0], threading.Event()

    @huey.task()
    def noop(n: int) -> None:
        with lock:
            done[0] += 1
            if done[0] == args.jobs:
                all_done.set()

    consumer = huey.create_consumer(workers=args.concurrency, worker_type="thread", periodic=False)

    def produce(first: int) -> None:
        for n in range(first, args.jobs, args.producers):
            noop(n)

    producers = [threading.Thread(target=produce, args=(p,)) for p in range(args.producers)]
    consumer.start()
    started = time.perf_counter()
    for producer in producers:
        producer.start()
    all_done.wait()
    seconds = time.perf_counter() - started
    consumer.stop(graceful=True)
    left = huey.pending_count()
    huey.storage.close()
    assert left == 0, left
    label = f"huey {version('huey')} SqliteHuey (WAL, synchronous={_LEVELS[synchronous]}, its default)"
    return measured(label, args.jobs, seconds)


# persist-queue: SQLiteAckQueue put + get + ack -----------------------------------------------------------


def run_persist_queue(folder: Path, args: argparse.Namespace) -> dict[str, object]:
    from persistqueue import SQLiteAckQueue
    from persistqueue.exceptions import Empty

    queue = SQLiteAckQueue(str(folder / "persist-queue"), multithreading=True, auto_commit=True)
    synchronous = queue._getter.execute("PRAGMA synchronous").fetchone()[0]
    lock, done, all_done = threading.Lock(), [0], threading.Event()

    def produce(first: int) -> None:
        for n in range(first, args.jobs, args.producers):
            queue.put(n)

    def consume() -> None:
        while not all_done.is_set():
            try:
                item = queue.get(block=True, timeout=0.05, raw=True)
            except Empty:
                continue
            queue.ack(id=item["pqid"])
            with lock:
                done[0] += 1
                if done[0] == args.jobs:
                    all_done.set()

    threads = [threading.Thread(target=consume) for _ in range(args.concurrency)]
    threads += [threading.Thread(target=produce, args=(p,)) for p in range(args.producers)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    all_done.wait()
    seconds = time.perf_counter() - started
    for thread in threads:
        thread.join()
    acked = queue.acked_count()
    queue.close()
    assert acked == args.jobs, acked
    level = _LEVELS[synchronous]
    label = f"persist-queue {version('persist-queue')} SQLiteAckQueue (WAL, synchronous={level}, its default)"
    return measured(label, args.jobs, seconds)


_LEVELS = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}


def version(distribution: str) -> str:
    from importlib.metadata import version as installed

    return installed(distribution)


if __name__ == "__main__":
    main()
