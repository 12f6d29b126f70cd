"""Crashes with real processes: a worker (engine + SQLite store) is SIGKILLed, poisoned, stopped.

Each test polls marker files and the database until a condition holds, with a deadline; what
did *not* happen is only concluded once the worker process has exited.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.sqlite import SqliteStore
from ports.jobs import NewJob

pytestmark = pytest.mark.slow

WORKER = Path(__file__).with_name("worker.py")
DEADLINE_SECONDS = 30.0
NOW = 1_700_000_000.0


class Rig:
    def __init__(self, folder: Path) -> None:
        self.db = folder / "vidrelay.db"
        self.markers = folder / "markers"
        self.markers.mkdir()
        self.log = folder / "worker.log"
        self.processes: list[subprocess.Popen[bytes]] = []

    async def seed(self, *jobs: tuple[str, str]) -> list[int]:
        """Enqueue (type, name) jobs in order, as the bot's handlers do, before a worker boots."""
        store = await SqliteStore.open(self.db)
        try:
            ids = [await store.enqueue(NewJob(kind, {"name": name}, 3), NOW) for kind, name in jobs]
        finally:
            await store.close()
        assert None not in ids
        return [i for i in ids if i is not None]

    def start(
        self, *, concurrency: int = 3, grace: float = 30.0, short_seconds: float | None = None
    ) -> subprocess.Popen[bytes]:
        argv = [sys.executable, str(WORKER), "--db", str(self.db), "--markers", str(self.markers)]
        argv += ["--concurrency", str(concurrency), "--grace", str(grace)]
        if short_seconds is not None:
            argv += ["--short-seconds", str(short_seconds)]
        with self.log.open("ab") as log:
            process = subprocess.Popen(argv, stdout=log, stderr=log)
        self.processes.append(process)
        return process

    def runs(self, name: str) -> int:
        return len(self.run_lines(name))

    def run_lines(self, name: str) -> list[dict[str, str]]:
        """One dict per run: pid, attempt, beside (the other jobs running in its process then)."""
        path = self.markers / f"{name}.runs"
        lines = path.read_text().splitlines() if path.exists() else []
        return [dict(field.split("=", 1) for field in line.split(" ")) for line in lines]

    def dead(self, name: str) -> bool:
        return (self.markers / f"{name}.dead").exists()

    def held(self) -> int:
        return int(self.rows("SELECT count(*) FROM jobs WHERE claimed_by IS NOT NULL")[0][0])

    def done(self, name: str) -> bool:
        return (self.markers / f"{name}.done").exists()

    def go(self, name: str) -> None:
        (self.markers / f"{name}.go").touch()

    def stopping(self, process: subprocess.Popen[bytes]) -> bool:
        return (self.markers / f"stopping-{process.pid}").exists()

    def gave_up_at_boot(self, process: subprocess.Popen[bytes]) -> int | None:
        path = self.markers / f"boot-{process.pid}"
        return int(path.read_text()) if path.exists() else None

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        connection = sqlite3.connect(self.db, timeout=10)
        try:
            return connection.execute(sql).fetchall()
        finally:
            connection.close()

    def queued(self) -> int:
        return int(self.rows("SELECT count(*) FROM jobs")[0][0])

    async def eventually(self, predicate: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + DEADLINE_SECONDS
        while not predicate():
            if time.monotonic() > deadline:
                tail = self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""
                raise AssertionError(f"timed out waiting for {what}\n--- worker log ---\n{tail}")
            await asyncio.sleep(0.02)

    async def exited(self, process: subprocess.Popen[bytes], what: str) -> int:
        await self.eventually(lambda: process.poll() is not None, what)
        return process.wait()

    async def outlive_the_poison(self, *, concurrency: int) -> subprocess.Popen[bytes]:
        """Boots 2, 3 and 4 die of the poison, now a suspect run alone; the fifth boot, returned,
        finds it spent."""
        for boot in (2, 3, 4):
            process = self.start(concurrency=concurrency)
            assert await self.exited(process, f"boot {boot} to be killed by the poison") == -signal.SIGKILL
        return self.start(concurrency=concurrency)

    async def stop(self, process: subprocess.Popen[bytes]) -> int:
        process.send_signal(signal.SIGTERM)
        return await self.exited(process, "the worker to stop on SIGTERM")


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    made = Rig(tmp_path)
    try:
        yield made
    finally:
        for process in made.processes:
            if process.poll() is None:
                process.kill()
                process.wait()


async def test_a_job_killed_mid_run_runs_again_after_a_restart_and_completes(rig: Rig) -> None:
    [job_id] = await rig.seed(("blocking", "a"))
    first = rig.start()
    await rig.eventually(lambda: rig.runs("a") == 1, "the job to start")

    first.kill()
    assert await rig.exited(first, "the SIGKILLed worker to die") == -signal.SIGKILL
    [(row_id, attempts, claimed_by)] = rig.rows("SELECT id, attempts, claimed_by FROM jobs")
    assert (row_id, attempts) == (job_id, 1)  # the attempt was spent before the work started
    assert claimed_by is not None  # the dead process's lease, cleared at the next boot

    second = rig.start()
    await rig.eventually(lambda: rig.runs("a") == 2, "the job to run again after the restart")
    rig.go("a")
    await rig.eventually(lambda: rig.queued() == 0, "the job to complete")

    assert rig.done("a")
    assert rig.rows("SELECT count(*) FROM failed_jobs") == [(0,)]
    assert await rig.stop(second) == 0


async def test_a_poison_job_runs_at_most_max_attempts_times_then_is_dead_lettered(rig: Rig) -> None:
    poison, *_ = await rig.seed(("poison", "p"), ("quick", "q1"), ("quick", "q2"))

    # One worker, FIFO: the poison is claimed first at every boot and kills the process.
    for boot in (1, 2, 3):
        process = rig.start(concurrency=1)
        assert await rig.exited(process, f"boot {boot} to be killed by the poison") == -signal.SIGKILL
        assert rig.runs("p") == boot

    survivor = rig.start(concurrency=1)
    await rig.eventually(lambda: rig.done("q1") and rig.done("q2"), "the other jobs to complete")
    await rig.eventually(lambda: rig.queued() == 0, "the queue to empty")

    assert rig.runs("p") == 3
    assert rig.gave_up_at_boot(survivor) == 1
    [(job_id, name, attempts, error)] = rig.rows("SELECT job_id, name, attempts, error FROM failed_jobs")
    assert (job_id, name, attempts) == (poison, "poison", 3)
    assert "gave up after 3 attempts" in error
    assert (rig.runs("q1"), rig.runs("q2")) == (1, 1)
    assert await rig.stop(survivor) == 0


async def test_sigterm_lets_the_running_job_finish_and_keeps_queued_rows(rig: Rig) -> None:
    await rig.seed(("blocking", "slow"), ("quick", "q1"), ("quick", "q2"))
    worker = rig.start(concurrency=1, grace=60.0)
    await rig.eventually(lambda: rig.runs("slow") == 1, "the slow job to start")

    worker.send_signal(signal.SIGTERM)
    await rig.eventually(lambda: rig.stopping(worker), "the worker to receive SIGTERM")
    rig.go("slow")

    assert await rig.exited(worker, "the worker to exit once the in-flight job is done") == 0
    assert rig.done("slow")
    assert rig.rows("SELECT json_extract(payload, '$.name'), attempts, claimed_by FROM jobs ORDER BY id") == [
        ("q1", 0, None),
        ("q2", 0, None),
    ]
    assert (rig.runs("q1"), rig.runs("q2")) == (0, 0)

    next_boot = rig.start(concurrency=1)
    await rig.eventually(lambda: rig.done("q1") and rig.done("q2"), "the next boot to run the queued rows")
    assert await rig.stop(next_boot) == 0
    assert rig.queued() == 0


async def test_sigterm_past_the_grace_period_releases_the_job_for_the_next_boot(rig: Rig) -> None:
    [job_id] = await rig.seed(("blocking", "stuck"))
    worker = rig.start(concurrency=1, grace=0.5)
    await rig.eventually(lambda: rig.runs("stuck") == 1, "the job to start")

    assert await rig.stop(worker) == 0
    assert not rig.done("stuck")
    # Cancelled by the shutdown, not failed: the attempt is refunded and the lease dropped.
    assert rig.rows("SELECT id, attempts, claimed_by FROM jobs") == [(job_id, 0, None)]

    next_boot = rig.start(concurrency=1)
    await rig.eventually(lambda: rig.runs("stuck") == 2, "the next boot to run it again")
    rig.go("stuck")
    await rig.eventually(lambda: rig.queued() == 0, "the job to complete")
    assert await rig.stop(next_boot) == 0


async def test_a_poison_job_claimed_beside_two_good_ones_is_dead_lettered_and_spares_them(rig: Rig) -> None:
    """Concurrency 3: at the first boot the poison dies with two innocent jobs in flight. None of
    the three is charged for that death; the poison then runs alone at each boot and is charged
    for each, so it is dead-lettered after max_attempts (3) such boots; the good jobs run alone
    after it and complete, never dead-lettered."""
    poison, *_ = await rig.seed(("poison_on_go", "p"), ("blocking", "g1"), ("blocking", "g2"))
    first = rig.start(concurrency=3)
    await rig.eventually(
        lambda: all(rig.runs(n) == 1 for n in ("p", "g1", "g2")), "all three to run together"
    )
    rig.go("p")
    assert await rig.exited(first, "the first boot to be killed by the poison") == -signal.SIGKILL
    assert rig.held() == 3  # the dead process held all three
    rig.go("g1")
    rig.go("g2")

    survivor = await rig.outlive_the_poison(concurrency=3)
    await rig.eventually(lambda: rig.done("g1") and rig.done("g2"), "the good jobs to complete")
    await rig.eventually(lambda: rig.queued() == 0, "the queue to empty")

    poison_runs = rig.run_lines("p")
    assert [run["attempt"] for run in poison_runs] == ["1", "1", "2", "3"]  # the first death was refunded
    assert [run["beside"] for run in poison_runs[1:]] == ["", "", ""]  # a suspect runs alone
    assert rig.gave_up_at_boot(survivor) == 1
    assert rig.dead("p")  # its user was told 💥
    [(job_id, attempts, error)] = rig.rows("SELECT job_id, attempts, error FROM failed_jobs")
    assert (job_id, attempts) == (poison, 3)
    assert "gave up after 3 attempts" in error
    for good in ("g1", "g2"):
        assert [(run["attempt"], run["beside"]) for run in rig.run_lines(good)][1:] == [("1", "")]
        assert not rig.dead(good)
    assert await rig.stop(survivor) == 0


async def test_a_sigkill_with_three_jobs_in_flight_charges_none_of_them(rig: Rig) -> None:
    """A deploy's SIGKILL: the three jobs come back as suspects with their attempts refunded, run
    alone one after the other, and complete with at most one charged attempt each."""
    names = ("a", "b", "c")
    await rig.seed(*(("blocking", n) for n in names))
    first = rig.start(concurrency=3)
    await rig.eventually(lambda: all(rig.runs(n) == 1 for n in names), "three jobs in flight")
    first.kill()
    assert await rig.exited(first, "the SIGKILLed worker to die") == -signal.SIGKILL
    assert rig.rows("SELECT attempts FROM jobs ORDER BY id") == [(1,), (1,), (1,)]
    for name in names:
        rig.go(name)

    second = rig.start(concurrency=3)
    await rig.eventually(lambda: all(rig.done(n) for n in names), "all three to complete")
    await rig.eventually(lambda: rig.queued() == 0, "their rows to be deleted")

    for name in names:
        [_, again] = rig.run_lines(name)
        assert (again["attempt"], again["beside"]) == ("1", "")  # refunded, then run alone
    assert rig.rows("SELECT count(*) FROM failed_jobs") == [(0,)]
    assert await rig.stop(second) == 0


async def test_jobs_claimed_ahead_beside_a_poison_are_not_charged_for_its_crash(rig: Rig) -> None:
    """One worker of short jobs claims ahead: after three short ones it holds the poison and the
    two jobs after it, and dies holding the three. None is charged for that death (none can be
    blamed alone); the two it never ran run once each, and the poison is charged only for the
    deaths it died alone. (`short_seconds` is long here so the jobs held ahead stay held while
    the poison waits for the short jobs' deletions to land.)"""
    short = [("quick", f"s{n}") for n in range(3)]
    *_, poison, _, _ = await rig.seed(*short, ("poison_late", "p"), ("quick", "q1"), ("quick", "q2"))
    first = rig.start(concurrency=1, short_seconds=30.0)
    assert await rig.exited(first, "the first boot to be killed by the poison") == -signal.SIGKILL
    assert rig.rows("SELECT json_extract(payload, '$.name'), attempts, claimed_by IS NOT NULL FROM jobs") == [
        ("p", 1, 1),
        ("q1", 1, 1),  # claimed ahead, never run
        ("q2", 1, 1),
    ]

    survivor = await rig.outlive_the_poison(concurrency=1)
    await rig.eventually(lambda: rig.done("q1") and rig.done("q2"), "the jobs after it to complete")
    await rig.eventually(lambda: rig.queued() == 0, "the queue to empty")

    assert [run["attempt"] for run in rig.run_lines("p")] == ["1", "1", "2", "3"]  # the first death refunded
    assert [(run["attempt"], run["beside"]) for run in rig.run_lines("q1")] == [("1", "")]
    assert [(run["attempt"], run["beside"]) for run in rig.run_lines("q2")] == [("1", "")]
    assert [rig.runs(name) for _, name in short] == [1, 1, 1]
    assert rig.rows("SELECT job_id, attempts FROM failed_jobs") == [(poison, 3)]
    assert await rig.stop(survivor) == 0
