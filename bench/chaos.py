"""The five chaos cells of the public PostgreSQL job queue benchmark, run natively here: vidrelay
beside procrastinate and pgqueuer, each under its documented reconnect behaviour.

    python bench/chaos.py [--scale 1.0] [--rate 100] [--cells ...] [--systems ...]   # about an hour
    python bench/chaos.py --quick      # vidrelay through every cell at 1/100 of the durations

The method is hardbyte/postgresql-job-queue-benchmarking's docs/method.md and its scenario
list (bench_harness/phases.py): two consumer replicas and a producer at a fixed rate (paced on
real elapsed time), 1 ms jobs, then per cell `warmup 30 s → baseline 60 s → chaos → recovery
60 s`:
- crash_recovery: SIGKILL replica 0, restart it 60 s later (a 120 s chaos phase);
- postgres_restart: the server stopped (pg_ctl stop -m fast) for half of 60 s, then started;
- repeated_kills: every 20 s for 120 s, SIGKILL replica 0 and restart it a second later;
- pg_backend_kill: twice a second, pg_terminate_backend of the system's active and idle-in-
  transaction backends (the method's filter), for 60 s;
- pool_exhaustion: 300 idle connections to the system's database held for 60 s (the server's
  max_connections raised so that the system's own still fit).
The harness itself drives Docker (compose for the server, `docker run` for the adapters) and
lists neither vidrelay nor pgqueuer, so it does not run here; this runs its cells on a local
server from testkit/postgres.py (fsync and synchronous_commit on) with the systems' own Python
libraries, as bench/pg_throughput.py does. `--scale` multiplies every duration.

Measured per cell and system, from what the processes wrote (chaos_report.py): jobs produced
(acknowledged enqueues), completed, lost (acknowledged and never run once the backlog had a
minute to drain), run twice, the time from each fault's end until every job acknowledged before
it had run (for a SIGKILL: from the kill), the recovery phase's completion rate against the
baseline's (recovered: nothing lost and ≥ 90 %, the method's threshold), and pickup latency
p50/p99 before (baseline) and after (recovery). A table of every cell, then a line per system,
`chaos SYSTEM: lost=… dup=… recovered=k/5 …`, then the figures line (bench/harness.py):
`chaos: vidrelay_lost=… vidrelay_dup=… vidrelay_recovered=k/5 … <peer>_…`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import harness
from chaos_report import HEADER, Outcome, Phases, outcome, summary
from chaos_systems import SYSTEMS, add_child_arguments, run_child

CELLS = ("crash_recovery", "postgres_restart", "repeated_kills", "pg_backend_kill", "pool_exhaustion")
WARMUP, BASELINE, RECOVERY, DRAIN = 30.0, 60.0, 60.0, 60.0
CHAOS = {"crash_recovery": 120.0, "repeated_kills": 120.0}
CHAOS_DEFAULT, KILL_PERIOD, IDLE_CONNECTIONS, KILLS_PER_SECOND = 60.0, 20.0, 300, 2.0
REPLICAS = 2
_SCRIPT = Path(__file__).resolve()
_SRC = Path(__file__).resolve().parents[1] / "src"
_KILL_BACKENDS = """
    SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
    WHERE datname = $1 AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')
"""


bench = harness.Bench("chaos", __doc__)
bench.size("--scale", 1.0, quick=0.01, help="multiplies every phase's duration")
bench.size("--rate", 100.0, quick=20.0, help="jobs a second the producer offers")
bench.size("--concurrency", 8, quick=4, help="jobs at once per consumer replica")
bench.size("--systems", ",".join(SYSTEMS), quick="vidrelay", help="systems, side by side in each cell")
bench.parser.add_argument("--cells", default=",".join(CELLS))
add_child_arguments(bench.parser)


@dataclass
class Run:
    """One system's processes through one cell."""

    system: str
    dsn: str
    folder: Path
    args: argparse.Namespace
    consumers: list[asyncio.subprocess.Process | None] = field(default_factory=list)
    producer: asyncio.subprocess.Process | None = None
    kills: dict[int, float] = field(default_factory=dict)
    started = 0

    async def spawn(self, role: str, out: Path) -> asyncio.subprocess.Process:
        argv = [sys.executable, str(_SCRIPT), "--child", self.system, "--role", role, "--dsn", self.dsn]
        argv += [
            "--out",
            str(out),
            "--rate",
            str(self.args.rate),
            "--concurrency",
            str(self.args.concurrency),
        ]
        env = {**os.environ, "PYTHONPATH": f"{_SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        log = (self.folder / f"{role}.log").open("ab")
        process = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.PIPE, stderr=log, env=env
        )
        assert process.stdout is not None
        line = await asyncio.wait_for(process.stdout.readline(), 120)
        if line.strip() != b"ready":
            raise SystemExit(
                f"{self.system} {role} did not start:\n{(self.folder / f'{role}.log').read_text()[-3000:]}"
            )
        return process

    async def start_consumer(self, replica: int) -> None:
        self.started += 1
        process = await self.spawn("consumer", self.folder / f"runs-{replica}-{self.started}.txt")
        if replica < len(self.consumers):
            self.consumers[replica] = process
        else:
            self.consumers.append(process)

    async def kill(self, replica: int) -> None:
        process = self.consumers[replica]
        if process is not None and process.returncode is None:
            self.kills[process.pid] = time.time()
            process.kill()
            await process.wait()
        self.consumers[replica] = None

    async def stop(self, process: asyncio.subprocess.Process | None) -> None:
        if process is None or process.returncode is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), 20)
        except TimeoutError:
            process.kill()
            await process.wait()


Fault = Callable[[Run, Any, float], Awaitable[list[float]]]
"""Runs through the chaos phase (its length given); returns when each fault ended."""


async def crash_recovery(run: Run, server: Any, seconds: float) -> list[float]:
    await run.kill(0)
    ended = time.time()
    await asyncio.sleep(seconds / 2)
    await run.start_consumer(0)
    return [ended]


async def repeated_kills(run: Run, server: Any, seconds: float) -> list[float]:
    """A kill every period while the phase lasts, and at least one (a --quick phase is short)."""
    ends, until = [], time.time() + seconds
    period = max(KILL_PERIOD * run.args.scale, 1.0)
    while not ends or time.time() + period < until:
        await asyncio.sleep(period)
        await run.kill(0)
        ends.append(time.time())
        await asyncio.sleep(1.0)
        await run.start_consumer(0)
    return ends


async def postgres_restart(run: Run, server: Any, seconds: float) -> list[float]:
    await asyncio.to_thread(server.control.stop)
    await asyncio.sleep(seconds / 2)
    await asyncio.to_thread(server.control.start)
    return [time.time()]


async def pg_backend_kill(run: Run, server: Any, seconds: float) -> list[float]:
    import asyncpg

    until, database = time.time() + seconds, run.dsn.rsplit("/", 1)[1]
    while time.time() < until:
        with contextlib.suppress(Exception):
            admin = await asyncpg.connect(server.dsn())
            try:
                while time.time() < until:
                    await admin.fetchval(_KILL_BACKENDS, database)
                    await asyncio.sleep(1 / KILLS_PER_SECOND)
            finally:
                await admin.close()
    return [time.time()]


async def pool_exhaustion(run: Run, server: Any, seconds: float) -> list[float]:

    until = time.time() + seconds
    held = [c for c in await asyncio.gather(*(_connect(run.dsn) for _ in range(IDLE_CONNECTIONS))) if c]
    print(f"#     {len(held)} idle connections held", flush=True)
    await asyncio.sleep(max(until - time.time(), 0))
    await asyncio.gather(*(c.close() for c in held), return_exceptions=True)
    return [time.time()]


async def _connect(dsn: str) -> Any:
    import asyncpg

    with contextlib.suppress(Exception):
        return await asyncpg.connect(dsn, timeout=30)
    return None


FAULTS: dict[str, Fault] = {
    "crash_recovery": crash_recovery,
    "postgres_restart": postgres_restart,
    "repeated_kills": repeated_kills,
    "pg_backend_kill": pg_backend_kill,
    "pool_exhaustion": pool_exhaustion,
}


async def run_cell(server: Any, cell: str, system: str, args: argparse.Namespace, root: Path) -> Outcome:
    scale = args.scale
    folder = root / f"{cell}-{system}"
    folder.mkdir()
    run = Run(system, await _fresh_database(server, f"{cell}_{system}"), folder, args)
    run.producer = await run.spawn("producer", folder / "produced.txt")
    for replica in range(REPLICAS):
        await run.start_consumer(replica)
    warmup = time.time()
    await asyncio.sleep(WARMUP * scale)
    baseline = time.time()
    await asyncio.sleep(BASELINE * scale)
    chaos = time.time()
    ends = await FAULTS[cell](run, server, CHAOS.get(cell, CHAOS_DEFAULT) * scale)
    recovery = time.time()
    await asyncio.sleep(RECOVERY * scale)
    ended = time.time()
    await run.stop(run.producer)
    await _drain(folder, DRAIN if not bench.quick else 20.0)
    for process in run.consumers:
        await run.stop(process)
    phases = Phases(warmup, baseline, chaos, recovery, ended)
    return outcome(system, cell, folder, phases, ends, run.kills)


async def _drain(folder: Path, seconds: float) -> None:
    """Until every acknowledged job has run (as the files say), or `seconds`."""
    until = time.time() + seconds
    while time.time() < until and not await asyncio.to_thread(_all_ran, folder):  # noqa: ASYNC110 - files of other processes
        await asyncio.sleep(0.5)


def _all_ran(folder: Path) -> bool:
    produced = {line.split()[0] for line in (folder / "produced.txt").read_text().splitlines() if line}
    runs = [line for path in folder.glob("runs-*.txt") for line in path.read_text().splitlines()]
    return produced <= {line.split()[0] for line in runs if line}


async def _fresh_database(server: Any, name: str) -> str:
    import asyncpg

    connection = await asyncpg.connect(server.dsn())
    try:
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()
    return server.dsn(name)


async def measure(args: argparse.Namespace) -> None:
    from testkit.postgres import DURABLE, throwaway_postgres

    cells = [c for c in args.cells.split(",") if c]
    systems = [s for s in args.systems.split(",") if s]
    settings = {**DURABLE, "max_connections": str(IDLE_CONNECTIONS + 150)}
    outcomes = []
    folder = tempfile.TemporaryDirectory(prefix="vidrelay-chaos-")
    with throwaway_postgres(settings) as server, folder as root:
        facts = await harness.postgres_facts(server.dsn())
        bench.setup(libraries=("asyncpg", "procrastinate", "pgqueuer"), replicas=REPLICAS, **facts)
        for cell in cells:
            for system in systems:
                found = await run_cell(server, cell, system, args, Path(root))
                print(f"#   {found.row()}", flush=True)
                outcomes.append(found)
    print(HEADER)
    for found in outcomes:
        print(found.row())
    figures: dict[str, object] = {}
    for system in systems:
        line, values = summary(outcomes, system)
        print(line)
        figures.update({f"{system}_{key}": value for key, value in values.items()})
    for found in outcomes:
        bench.expect(found.produced > 0, f"{found.system} produced nothing in {found.cell}")
    bench.figures(**figures)


if __name__ == "__main__":
    arguments = bench.parse()
    if arguments.child:
        asyncio.run(run_child(arguments))
    else:
        bench.run(measure, arguments)
