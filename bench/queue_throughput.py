"""End-to-end queue throughput: vidrelay's SQLite store + Engine against huey and persist-queue,
on a fast disk and on a slow one.

    python bench/queue_throughput.py [--jobs 20000] [--slow-jobs 5000] [--sync-delay 1.0]
                                     [--producers 32] [--rounds 3] [--dir PATH] [--quick]

Two disks, one run: the fast disk is the folder the files are in (`--dir`, by default the
system's temporary folder) as it is; the slow disk is the same folder with every fsync and
fdatasync made `--sync-delay` milliseconds longer, in every system's process alike (slow_disk.py:
a library preloaded into each child). The set-up line gives both disks' flushes per second, as a
4 KiB write + fdatasync loop measures them. The slow disk runs `--slow-jobs` jobs per
measurement, since its flushes, not the systems, take most of the time.

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
on the fast disk to show what the other setting would buy. Each measurement runs in a fresh child
process; the rounds interleave the systems and the disks so that a noisy machine hurts them
alike; the median is reported. The figures line: `queue_throughput: ratio_vs_huey=X.XX
ratio_vs_huey_fast=X.XX ratio_vs_huey_slow=X.XX ratio_vs_persist_queue=X.XX vidrelay_jobs_s=N
...`, where ratio_vs_huey (and ratio_vs_persist_queue) is the lower of the two disks' ratios and
the plain `_jobs_s` figures are the fast disk's.

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
import slow_disk

SYSTEMS = ("vidrelay", "vidrelay-other-durability", "huey", "persist-queue")
PEERS = {"huey": "huey", "persist-queue": "persist_queue"}
bench = harness.Bench("queue_throughput", __doc__)
bench.size("--jobs", 20_000, quick=200, help="no-op jobs per measurement on the fast disk")
bench.size("--slow-jobs", 5_000, quick=100, help="no-op jobs per measurement on the slow disk")
bench.size("--rounds", 3, quick=1, help="interleaved rounds")
bench.parser.add_argument(
    "--producers", type=int, default=32, help="concurrent producers (coroutines/threads)"
)
bench.parser.add_argument("--concurrency", type=int, default=3, help="consumers")
bench.parser.add_argument(
    "--dir", type=Path, default=None, help="folder for the database files: the fast disk (default: temp)"
)
bench.parser.add_argument(
    "--sync-delay",
    type=float,
    default=1.0,
    metavar="MS",
    help="the slow disk: milliseconds added to every fsync/fdatasync (0: measure the fast disk only)",
)
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
    with tempfile.TemporaryDirectory(prefix="vidrelay-bench-", dir=args.dir) as folder:
        disks = {"fast": slow_disk.environment(None, 0.0)}
        if args.sync_delay > 0:
            disks["slow"] = slow_disk.environment(slow_disk.build(Path(folder)), args.sync_delay)
        flushes = {
            f"{disk}_disk_flushes_s": slow_disk.flushes_per_second(Path(folder), env)
            for disk, env in disks.items()
        }
        bench.setup(
            libraries=("huey", "persist-queue"),
            sqlite=sqlite3.sqlite_version,
            producers=args.producers,
            consumers=args.concurrency,
            sync_delay_ms=args.sync_delay,
            **{name: round(rate) for name, rate in flushes.items()},
        )
        print(f"# files in {folder}")
        results = measure(args, Path(folder), disks, systems)
    medians = {
        key: statistics.median(float(str(r["jobs_per_second"])) for r in rs) for key, rs in results.items()
    }
    for (disk, system), runs in results.items():
        print(f"{disk} disk: {runs[0]['label']}: {medians[disk, system]:.0f} jobs/s")
    other = "NORMAL" if DEFAULT_SYNCHRONOUS == "FULL" else "FULL"
    durability = {}
    if ("fast", "vidrelay-other-durability") in medians:
        change = medians["fast", "vidrelay-other-durability"] / medians["fast", "vidrelay"]
        print(f"# synchronous={other} instead of {DEFAULT_SYNCHRONOUS}: x{change:.2f} throughput")
        durability[f"{other.lower()}_vs_{DEFAULT_SYNCHRONOUS.lower()}"] = change
    bench.figures(**ratios(medians, list(disks)), **durability)


def measure(
    args: argparse.Namespace, folder: Path, disks: dict[str, dict[str, str]], systems: list[str]
) -> dict[tuple[str, str], list[dict[str, object]]]:
    """Every system on every disk, once per round, each in a child of its own."""
    results: dict[tuple[str, str], list[dict[str, object]]] = {}
    for round_number in range(args.rounds):
        for disk, env in disks.items():
            jobs = args.jobs if disk == "fast" else args.slow_jobs
            for system in systems:
                if disk != "fast" and system == "vidrelay-other-durability":
                    continue
                result = run_in_child(system, args, jobs, env, folder / f"{system}-{disk}-{round_number}")
                results.setdefault((disk, system), []).append(result)
                speed = float(str(result["jobs_per_second"]))
                print(f"#   round {round_number + 1}, {disk} disk: {system} {speed:.0f} jobs/s", flush=True)
    return results


def ratios(medians: dict[tuple[str, str], float], disks: list[str]) -> dict[str, float]:
    """The figures: vidrelay against each peer on each disk, the lower ratio of the two disks, and
    the systems' jobs per second (the fast disk's unmarked)."""
    figures: dict[str, float] = {}
    for peer, name in PEERS.items():
        each = {disk: medians[disk, "vidrelay"] / medians[disk, peer] for disk in disks}
        figures[f"ratio_vs_{name}"] = min(each.values())
        if name == "huey":
            figures.update({f"ratio_vs_huey_{disk}": ratio for disk, ratio in each.items()})
    for disk in disks:
        mark = "" if disk == "fast" else f"_{disk}"
        for system, name in {"vidrelay": "vidrelay", **PEERS}.items():
            figures[f"{name}{mark}_jobs_s"] = medians[disk, system]
    return figures


def run_in_child(
    system: str, args: argparse.Namespace, jobs: int, env: dict[str, str], folder: Path
) -> dict[str, object]:
    folder.mkdir()
    argv = [sys.executable, __file__, "--only", system, "--dir", str(folder)]
    argv += [
        "--jobs",
        str(jobs),
        "--producers",
        str(args.producers),
        "--concurrency",
        str(args.concurrency),
    ]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
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
