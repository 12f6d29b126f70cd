"""The processes bench/chaos.py runs for each system: one producer and the consumer replicas,
started as `python bench/chaos.py --child SYSTEM --role consumer|producer --dsn DSN --out FILE`.

A consumer runs the system's own worker, each job a 1 ms no-op (the method's JOB_WORK_MS) that
appends "n enqueued_at started_at pid" to FILE with one unbuffered write when it ends, so a line
survives a SIGKILL right after it. A producer enqueues `--rate` jobs a second, paced on real
elapsed time (the method's normative pacing), each payload carrying its number and its enqueue
time, up to IN_FLIGHT enqueues at once, and appends "n acked_at retried" to FILE once the system
acknowledged it; an enqueue that fails is tried again until it lands (`retried` 1: an earlier
try may have landed unseen). Both
print "ready" and run until SIGTERM. Each system runs as its documentation says to run it
through faults:
- vidrelay: the PostgreSQL store and engine at their defaults (30 s lease, sessions probed);
  the producer enqueues with a handled-URL guard, as the bot's intake does, so a retried enqueue
  never makes a second row.
- procrastinate: the worker options of the method's own adapter (LISTEN/NOTIFY, heartbeat every
  5 s, workers stalled after 15 s) and the documented recovery of stalled jobs
  (`job_manager.get_stalled_jobs` + `retry_job`, here every 5 s); `queueing_lock` per job.
- pgqueuer: `pgqueuer.run(..., restart_on_failure=True)`, its documented supervisor, which
  starts a new manager on a new connection after a failure; picked jobs whose heartbeat is older
  than its default 30 s are picked again; `dedupe_key` per job.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from typing import Any

SYSTEMS = ("vidrelay", "procrastinate", "pgqueuer")
WORK_SECONDS = 0.001
RETRY_SECONDS = 0.2
IN_FLIGHT = 16
"""Enqueues waiting for their answer at once, at most: the offered rate holds whatever one
enqueue costs a system, and a store that is down holds the producer back."""


def add_child_arguments(parser: argparse.ArgumentParser) -> None:
    """What a child is told, beside the bench's own --rate and --concurrency (not for users)."""
    parser.add_argument("--child", choices=SYSTEMS, help=argparse.SUPPRESS)
    parser.add_argument("--role", choices=("producer", "consumer"), help=argparse.SUPPRESS)
    parser.add_argument("--dsn", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)


async def run_child(args: argparse.Namespace) -> None:
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    out = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    system = SETUPS[args.child]
    if args.role == "consumer":
        await system.consume(args, _ran(out), stop)
    else:
        enqueue = await system.producer(args)
        await produce(args, enqueue, out, stop)
    os.close(out)


def _ran(out: int) -> Callable[[int, float, float], None]:
    def ran(n: int, enqueued_at: float, started_at: float) -> None:
        os.write(out, f"{n} {enqueued_at:.6f} {started_at:.6f} {os.getpid()}\n".encode())

    return ran


Enqueue = Callable[[int, float], Awaitable[None]]
Ran = Callable[[int, float, float], None]


async def produce(args: argparse.Namespace, enqueue: Enqueue, out: int, stop: asyncio.Event) -> None:
    """`--rate` enqueues a second, up to IN_FLIGHT at once (one call each waits for the store, as
    a handler's does), each tried again until it lands; the pace is credited on real time."""
    print("ready", flush=True)
    slots = asyncio.Semaphore(IN_FLIGHT)
    running: set[asyncio.Task[None]] = set()

    async def one(n: int) -> None:
        retried = 0
        try:
            while not stop.is_set():
                try:
                    await enqueue(n, time.time())
                except Exception:  # the system says no for now: try again, as a producer would
                    retried = 1
                    await asyncio.sleep(RETRY_SECONDS)
                    continue
                os.write(out, f"{n} {time.time():.6f} {retried}\n".encode())
                return
        finally:
            slots.release()

    credit, n, last = 0.0, 0, time.monotonic()
    while not stop.is_set():
        now = time.monotonic()
        credit, last = credit + args.rate * (now - last), now
        while credit >= 1 and not stop.is_set():
            credit -= 1
            await slots.acquire()
            task = asyncio.create_task(one(n))
            running.add(task)
            task.add_done_callback(running.discard)
            n += 1
        await asyncio.sleep(0.005)
    for task in list(running):
        task.cancel()
    await asyncio.gather(*running, return_exceptions=True)


async def _work(ran: Callable[[int, float, float], None], n: int, enqueued_at: float) -> None:
    started = time.time()
    await asyncio.sleep(WORK_SECONDS)
    ran(n, enqueued_at, started)


class System:
    producer: Callable[[argparse.Namespace], Awaitable[Callable[[int, float], Awaitable[None]]]]
    consume: Callable[
        [argparse.Namespace, Callable[[int, float, float], None], asyncio.Event], Awaitable[None]
    ]


# vidrelay --------------------------------------------------------------------------------------------


async def vidrelay_producer(args: argparse.Namespace) -> Callable[[int, float], Awaitable[None]]:
    from adapters.postgres import PostgresStore
    from adapters.system.clock import SystemClock
    from ports.jobs import HandledUrlGuard, NewJob

    store = await PostgresStore.open(args.dsn, node=f"producer-{os.getpid()}", clock=SystemClock())

    async def enqueue(n: int, at: float) -> None:
        job = NewJob("noop", {"n": n, "at": at}, max_attempts=100)
        await store.enqueue(job, at, HandledUrlGuard(0, n, "bench"))  # None: an earlier try landed

    return enqueue


async def vidrelay_consume(
    args: argparse.Namespace, ran: Callable[[int, float, float], None], stop: asyncio.Event
) -> None:
    import logging
    import random
    import uuid

    from returns.result import Success

    from adapters.postgres import PostgresStore
    from adapters.system.clock import SystemClock
    from core.jobs.engine import Engine, EngineConfig
    from core.jobs.registry import JobContext, JobOutcome, JobRegistry, JobType

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

    async def noop(context: JobContext) -> JobOutcome:
        await _work(ran, int(context.payload["n"]), float(context.payload["at"]))
        return Success(None)

    store = await PostgresStore.open(args.dsn, node=f"consumer-{os.getpid()}", clock=SystemClock())
    registry = JobRegistry([JobType("noop", noop, timeout_seconds=60.0, max_attempts=100)])
    config = EngineConfig(concurrency=args.concurrency, sole_instance=False)
    engine = Engine(store, SystemClock(), registry, config, random.random, worker_id=uuid.uuid4().hex)
    store.on_work(engine.wake)
    await engine.start()
    print("ready", flush=True)
    await stop.wait()
    await engine.stop(5.0)
    await store.close()


# procrastinate ----------------------------------------------------------------------------------------


def _procrastinate_app(args: argparse.Namespace, ran: Callable[[int, float, float], None] | None) -> Any:
    import procrastinate

    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=args.dsn))

    @app.task(name="noop")
    async def noop(n: int, at: float) -> None:
        if ran is not None:
            await _work(ran, n, at)

    return app


async def procrastinate_producer(args: argparse.Namespace) -> Callable[[int, float], Awaitable[None]]:
    from procrastinate.exceptions import AlreadyEnqueued

    app = _procrastinate_app(args, None)
    await app.open_async()
    await app.schema_manager.apply_schema_async()
    task = app.tasks["noop"]

    async def enqueue(n: int, at: float) -> None:
        with contextlib.suppress(AlreadyEnqueued):  # an earlier try landed and waits
            await task.configure(queueing_lock=str(n)).defer_async(n=n, at=at)

    return enqueue


async def procrastinate_consume(
    args: argparse.Namespace, ran: Callable[[int, float, float], None], stop: asyncio.Event
) -> None:
    app = _procrastinate_app(args, ran)
    await app.open_async()
    worker = app.run_worker_async(  # the worker options of the method's adapter
        concurrency=args.concurrency,
        fetch_job_polling_interval=0.05,
        abort_job_polling_interval=0.05,
        listen_notify=True,
        install_signal_handlers=False,
        update_heartbeat_interval=5,
        stalled_worker_timeout=15,
    )
    running = asyncio.create_task(worker)
    retrying = asyncio.create_task(_retry_stalled(app, stop))
    print("ready", flush=True)
    await stop.wait()
    for task in (running, retrying):
        task.cancel()
    await asyncio.gather(running, retrying, return_exceptions=True)
    await app.close_async()


async def _retry_stalled(app: Any, stop: asyncio.Event) -> None:
    """procrastinate's documented recovery of the jobs of a worker that died."""
    while not stop.is_set():
        with contextlib.suppress(Exception):
            for job in await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=15):
                await app.job_manager.retry_job(job)
        await asyncio.sleep(5)


# pgqueuer ---------------------------------------------------------------------------------------------


async def pgqueuer_producer(args: argparse.Namespace) -> Callable[[int, float], Awaitable[None]]:
    import asyncpg
    from pgqueuer.db import AsyncpgPoolDriver
    from pgqueuer.errors import DuplicateJobError
    from pgqueuer.queries import Queries

    pool = await asyncpg.create_pool(args.dsn, min_size=2, max_size=4)
    queries = Queries(AsyncpgPoolDriver(pool))
    with contextlib.suppress(Exception):  # installed already
        await queries.install()

    async def enqueue(n: int, at: float) -> None:
        with contextlib.suppress(DuplicateJobError):
            await queries.enqueue("noop", f"{n} {at}".encode(), dedupe_key=str(n))

    return enqueue


async def pgqueuer_consume(
    args: argparse.Namespace, ran: Callable[[int, float, float], None], stop: asyncio.Event
) -> None:
    import asyncpg
    import pgqueuer
    from pgqueuer import PgQueuer
    from pgqueuer.db import AsyncpgDriver

    @contextlib.asynccontextmanager
    async def factory() -> AsyncIterator[PgQueuer]:
        connection = await asyncpg.connect(args.dsn)
        pgq = PgQueuer(AsyncpgDriver(connection))

        @pgq.entrypoint("noop")
        async def noop(job: Any) -> None:
            n, at = job.payload.decode().split()
            await _work(ran, int(n), float(at))

        try:
            yield pgq
        finally:
            connection.terminate()

    print("ready", flush=True)
    await pgqueuer.run(
        factory,
        batch_size=max(1, args.concurrency // 2),
        max_concurrent_tasks=args.concurrency,
        restart_on_failure=True,
        restart_delay=timedelta(seconds=1),
        shutdown=stop,
    )


def _system(producer: Any, consume: Any) -> System:
    made = System()
    made.producer, made.consume = producer, consume
    return made


SETUPS = {
    "vidrelay": _system(vidrelay_producer, vidrelay_consume),
    "procrastinate": _system(procrastinate_producer, procrastinate_consume),
    "pgqueuer": _system(pgqueuer_producer, pgqueuer_consume),
}
