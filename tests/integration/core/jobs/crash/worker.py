"""A real worker process for the crash tests: the job engine over the SQLite store on one file.

Run as `python worker.py --db FILE --markers DIR [--concurrency N] [--grace SECONDS]
[--short-seconds SECONDS]` (the last: EngineConfig.claim_ahead_below_seconds).
Job types, all keyed by `payload["name"]`, leave files in DIR so the test can see what ran:
- `blocking`: appends a line to NAME.runs, waits for NAME.go to appear, writes NAME.done;
- `poison`:   appends a line to NAME.runs, then SIGKILLs its own process (an OOM kill, say);
- `poison_on_go`: appends a line to NAME.runs, waits for NAME.go, then SIGKILLs its process;
- `quick`:    appends a line to NAME.runs and writes NAME.done;
- `poison_late`: appends a line to NAME.runs, waits until every job queued before it is gone
  from the file (the one before it completed), then SIGKILLs its process.
Each line of NAME.runs says which other jobs were running in the process when it started
(`beside=`); a job that dies is dead-lettered with NAME.dead written (the user told 💥).
Boot writes boot-PID (how many jobs gave up at this boot); SIGTERM or SIGINT writes stopping-PID,
then `engine.stop(grace)`, closes the store and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import signal
import sqlite3
import sys
from pathlib import Path

from returns.result import Success

from adapters.sqlite import SqliteStore
from adapters.system.clock import SystemClock
from core.jobs.context import JobContext
from core.jobs.engine import Engine, EngineConfig
from core.jobs.hooks import DeadJob
from core.jobs.outcome import JobOutcome
from core.jobs.registry import JobRegistry, JobType
from core.lifecycle.retry_policy import RetryPolicy

POLL_SECONDS = 0.01


class Markers:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.running: set[str] = set()

    def ran(self, context: JobContext) -> str:
        name = str(context.payload["name"])
        beside = ",".join(sorted(self.running))
        self.running.add(name)
        with (self.folder / f"{name}.runs").open("a") as runs:
            runs.write(f"pid={os.getpid()} attempt={context.attempt} beside={beside}\n")
        return name

    def done(self, name: str) -> None:
        self.running.discard(name)
        (self.folder / f"{name}.done").write_text(str(os.getpid()))

    async def wait_for_go(self, name: str) -> None:
        # The go signal comes from another process (the test), as a file: poll for it.
        while not (self.folder / f"{name}.go").exists():  # noqa: ASYNC110
            await asyncio.sleep(POLL_SECONDS)


def earlier_rows(db: Path, job_id: int) -> int:
    connection = sqlite3.connect(db, timeout=10)
    try:
        return int(connection.execute("SELECT count(*) FROM jobs WHERE id < ?", (job_id,)).fetchone()[0])
    finally:
        connection.close()


def registry(markers: Markers, db: Path) -> JobRegistry:
    async def blocking(context: JobContext) -> JobOutcome:
        name = markers.ran(context)
        await markers.wait_for_go(name)
        markers.done(name)
        return Success(None)

    async def poison(context: JobContext) -> JobOutcome:
        markers.ran(context)
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable: the process is gone")

    async def poison_on_go(context: JobContext) -> JobOutcome:
        await markers.wait_for_go(markers.ran(context))
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable: the process is gone")

    async def poison_late(context: JobContext) -> JobOutcome:
        markers.ran(context)
        while earlier_rows(db, context.job.id):  # noqa: ASYNC110 - another connection's commit
            await asyncio.sleep(POLL_SECONDS)
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable: the process is gone")

    async def told(dead: DeadJob) -> None:
        (markers.folder / f"{dead.job.payload['name']}.dead").write_text(dead.reason)

    async def quick(context: JobContext) -> JobOutcome:
        markers.done(markers.ran(context))
        return Success(None)

    return JobRegistry(
        [
            JobType("blocking", blocking, timeout_seconds=120.0),
            JobType("poison", poison, timeout_seconds=120.0, on_dead=told),
            JobType("poison_on_go", poison_on_go, timeout_seconds=120.0, on_dead=told),
            JobType("quick", quick, timeout_seconds=120.0),
            JobType("poison_late", poison_late, timeout_seconds=120.0, on_dead=told),
        ]
    )


async def main(arguments: argparse.Namespace) -> int:
    markers = Markers(Path(arguments.markers))
    store = await SqliteStore.open(Path(arguments.db))
    config = EngineConfig(
        concurrency=arguments.concurrency,
        max_attempts=3,
        retry=RetryPolicy(base_seconds=0.05),
        max_idle_seconds=0.2,
        claim_ahead_below_seconds=arguments.short_seconds,
        error_backoff=RetryPolicy(base_seconds=0.05, cap_seconds=0.2),
    )
    engine = Engine(
        store,
        SystemClock(),
        registry(markers, Path(arguments.db)),
        config,
        random.random,
        worker_id=f"crash-test-{os.getpid()}",
    )
    stop = asyncio.Event()

    def on_signal() -> None:
        (markers.folder / f"stopping-{os.getpid()}").touch()
        stop.set()

    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, on_signal)
    gave_up = await engine.start()
    (markers.folder / f"boot-{os.getpid()}").write_text(str(gave_up))
    await stop.wait()
    await engine.stop(arguments.grace)
    await store.close()
    return 0


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True)
    parser.add_argument("--markers", required=True)
    parser.add_argument("--concurrency", type=int, default=3)
    parser.add_argument("--grace", type=float, default=30.0)
    parser.add_argument("--short-seconds", type=float, default=EngineConfig().claim_ahead_below_seconds)
    return parser.parse_args(argv)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s %(message)s")
    sys.exit(asyncio.run(main(parse(sys.argv[1:]))))
