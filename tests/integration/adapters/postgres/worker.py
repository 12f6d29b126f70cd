"""A real worker process for the scale-out tests: the job engine over the PostgreSQL store.

Run as `python worker.py --dsn DSN --runs FILE [--concurrency N] [--lease SECONDS]`. One job
type, `noop`, appends its payload's `n` to FILE (one unbuffered write, so a line survives a
SIGKILL right after it) and succeeds. Prints `ready WORKER_ID` once its workers run; SIGTERM
stops the engine and closes the store.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import signal
import sys
import uuid

from returns.result import Success

from adapters.postgres import PostgresStore
from adapters.system.clock import SystemClock
from core.jobs.context import JobContext
from core.jobs.engine import Engine, EngineConfig
from core.jobs.outcome import JobOutcome
from core.jobs.registry import JobRegistry, JobType


async def main(arguments: argparse.Namespace) -> int:
    runs = os.open(arguments.runs, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    async def noop(context: JobContext) -> JobOutcome:
        os.write(runs, f"{context.payload['n']}\n".encode())
        return Success(None)

    worker_id = f"test-worker-{uuid.uuid4().hex[:8]}"
    store = await PostgresStore.open(arguments.dsn, node=worker_id, clock=SystemClock())
    registry = JobRegistry([JobType("noop", noop, timeout_seconds=60.0)])
    config = EngineConfig(
        concurrency=arguments.concurrency,
        sole_instance=False,
        lease_seconds=arguments.lease,
        heartbeat_seconds=arguments.lease / 4,
    )
    engine = Engine(store, SystemClock(), registry, config, random.random, worker_id=worker_id)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    store.on_work(engine.wake)
    await engine.start()
    print(f"ready {worker_id}", flush=True)
    await stop.wait()
    await engine.stop(5.0)
    await store.close()
    os.close(runs)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--runs", required=True)
    parser.add_argument("--concurrency", type=int, default=3)
    parser.add_argument("--lease", type=float, default=2.0)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    sys.exit(asyncio.run(main(parser.parse_args())))
