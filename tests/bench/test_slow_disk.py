"""bench/slow_disk.py: every fsync and fdatasync of a child the library is preloaded in takes the
delay longer; the fast disk's children run as they are."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.bench.quick import BENCH_DIR, run_quick

pytestmark = pytest.mark.slow

_FLUSHES = """
import os, sys, time
fd = os.open(os.path.join(sys.argv[1], "probe"), os.O_WRONLY | os.O_CREAT, 0o600)
started = time.monotonic()
for _ in range(3):
    os.write(fd, b"x")
    os.fsync(fd)
    os.fdatasync(fd)
print(time.monotonic() - started)
"""


@pytest.fixture(scope="module")
def slow_disk() -> ModuleType:
    sys.path.insert(0, str(BENCH_DIR))
    try:
        return importlib.import_module("slow_disk")
    finally:
        sys.path.remove(str(BENCH_DIR))


def test_every_flush_of_the_child_takes_the_delay_longer(tmp_path: Path, slow_disk: ModuleType) -> None:
    env = slow_disk.environment(slow_disk.build(tmp_path), 20.0)

    done = subprocess.run(
        [sys.executable, "-c", _FLUSHES, str(tmp_path)], env=env, capture_output=True, text=True, check=True
    )

    assert float(done.stdout) >= 6 * 0.020


def test_the_fast_disk_runs_its_children_as_they_are(slow_disk: ModuleType, tmp_path: Path) -> None:
    library = slow_disk.build(tmp_path)

    assert slow_disk.environment(None, 20.0) == dict(os.environ)
    assert slow_disk.environment(library, 0.0) == dict(os.environ)


@pytest.mark.bench
def test_the_queue_bench_prints_both_disks_ratios_and_the_lower_one() -> None:
    run = run_quick(BENCH_DIR / "queue_throughput.py")

    assert run.returncode == 0, run.output()
    figures = run.figures
    fast, slow = float(figures["ratio_vs_huey_fast"]), float(figures["ratio_vs_huey_slow"])
    assert float(figures["ratio_vs_huey"]) == min(fast, slow)
    assert {"fast_disk_flushes_s", "slow_disk_flushes_s", "sync_delay_ms"} <= set(run.setup)
