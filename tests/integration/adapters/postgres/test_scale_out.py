"""Many worker processes on one PostgreSQL database, for real: every job runs exactly once, and
a worker killed mid-run loses nothing — its rows come back after the lease and the others run
them; only what it had in flight may run a second time.

Each test polls the database and the runs files until a condition holds, with a deadline.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from adapters.postgres import PostgresStore
from adapters.system.clock import SystemClock
from ports.jobs import NewJob

pytestmark = pytest.mark.slow

WORKER = Path(__file__).with_name("worker.py")
JOBS = 10_000
DEADLINE_SECONDS = 120.0
LEASE_SECONDS = 2.0


class Fleet:
    def __init__(self, dsn: str, folder: Path) -> None:
        self.dsn = dsn
        self.folder = folder
        self.processes: list[asyncio.subprocess.Process] = []
        self.worker_ids: list[str] = []

    async def start(self, count: int) -> None:
        for n in range(count):
            log = (self.folder / f"worker-{n}.log").open("ab")
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                str(WORKER),
                "--dsn",
                self.dsn,
                "--runs",
                str(self.runs_file(n)),
                "--lease",
                str(LEASE_SECONDS),
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
            )
            self.processes.append(process)
        for process in self.processes:
            assert process.stdout is not None
            line = await asyncio.wait_for(process.stdout.readline(), 60)
            assert line.startswith(b"ready "), line
            self.worker_ids.append(line.split()[1].decode())

    def runs_file(self, n: int) -> Path:
        return self.folder / f"runs-{n}.txt"

    def runs(self, n: int) -> list[int]:
        path = self.runs_file(n)
        return [int(line) for line in path.read_text().split()] if path.exists() else []

    async def stop(self) -> None:
        for process in self.processes:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            await asyncio.wait_for(process.wait(), 60)


@pytest.fixture
async def fleet(pg_dsn: str, tmp_path: Path) -> AsyncIterator[Fleet]:
    store = await PostgresStore.open(pg_dsn, node="seeder", clock=SystemClock())
    try:
        await asyncio.gather(*(_seed(store, first) for first in range(16)))
    finally:
        await store.close()
    made = Fleet(pg_dsn, tmp_path)
    try:
        yield made
    finally:
        for process in made.processes:
            if process.returncode is None:
                process.kill()
                await process.wait()


async def _seed(store: PostgresStore, first: int) -> None:
    for n in range(first, JOBS, 16):
        assert await store.enqueue(NewJob("noop", {"n": n}, 3), time.time()) is not None


async def left_in_queue(dsn: str) -> tuple[int, int]:
    connection = await asyncpg.connect(dsn)
    try:
        row = await connection.fetchrow(
            "SELECT (SELECT count(*) FROM jobs), (SELECT count(*) FROM failed_jobs)"
        )
    finally:
        await connection.close()
    assert row is not None
    return row[0], row[1]


async def until_drained(dsn: str) -> None:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while (await left_in_queue(dsn))[0] > 0:
        assert time.monotonic() < deadline, f"not drained: {await left_in_queue(dsn)}"
        await asyncio.sleep(0.2)


async def test_four_workers_drain_ten_thousand_jobs_each_run_exactly_once(fleet: Fleet) -> None:
    await fleet.start(4)

    await until_drained(fleet.dsn)
    await fleet.stop()

    per_worker = [fleet.runs(n) for n in range(4)]
    counts = Counter(n for runs in per_worker for n in runs)
    assert sorted(counts) == list(range(JOBS))
    assert set(counts.values()) == {1}
    assert all(per_worker), [len(r) for r in per_worker]  # the work was shared
    assert await left_in_queue(fleet.dsn) == (0, 0)


async def test_a_worker_killed_mid_run_loses_nothing_and_only_its_in_flight_jobs_run_twice(
    fleet: Fleet,
) -> None:
    await fleet.start(4)
    deadline = time.monotonic() + DEADLINE_SECONDS
    while len(fleet.runs(0)) < 500:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)

    victim = fleet.processes[0]
    victim.send_signal(signal.SIGKILL)
    await victim.wait()
    connection = await asyncpg.connect(fleet.dsn)
    try:
        held = await connection.fetch("SELECT payload FROM jobs WHERE claimed_by = $1", fleet.worker_ids[0])
    finally:
        await connection.close()
    in_flight = {json.loads(row[0])["n"] for row in held}
    assert in_flight, "the killed worker held no job: nothing was tested"
    await until_drained(fleet.dsn)
    await fleet.stop()

    counts = Counter(n for w in range(4) for n in fleet.runs(w))
    assert sorted(counts) == list(range(JOBS))  # none lost
    twice = {n for n, c in counts.items() if c > 1}
    assert twice <= in_flight, twice - in_flight
    assert max(counts.values()) <= 2
    survivors = Counter(n for w in range(1, 4) for n in fleet.runs(w))
    assert in_flight <= set(survivors)  # the killed worker's jobs were completed by the others
    assert await left_in_queue(fleet.dsn) == (0, 0)
