"""A bench that breaks fails the test command and says which bench and why (issue 26).

Each test plants an error in a temporary copy of a real bench (beside copies of the harness and
the other modules benches share), so what is proved is the detection of the real thing, not of a
toy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bench.quick import QUICK_TIMEOUT_SECONDS, REPO, benches, run_quick

pytestmark = [pytest.mark.bench, pytest.mark.slow]


def planted(tmp_path: Path, bench: str, old: str, new: str) -> Path:
    """bench/`bench` copied into a folder of its own (beside the modules the benches share) with
    `old` replaced by `new`."""
    folder = tmp_path / "bench"
    folder.mkdir()
    for shared in set((REPO / "bench").glob("*.py")) - set(benches(REPO / "bench")):
        shutil.copy(shared, folder)
    text = (REPO / "bench" / bench).read_text()
    assert old in text, f"the error cannot be planted: {old!r} is not in bench/{bench}"
    (folder / bench).write_text(text.replace(old, new))
    return folder / bench


def test_a_child_that_dies_of_a_renamed_symbol_fails_the_quick_run(tmp_path: Path) -> None:
    script = planted(tmp_path, "queue_throughput.py", "await engine.submit(", "await engine.submit_renamed(")

    run = run_quick(script)

    assert run.returncode == 1, run.output()
    assert "queue_throughput: FAILED: BenchFailed: vidrelay exited with 1" in run.stderr, run.output()
    assert "AttributeError" in run.stderr, "the child's own error is passed on"


def test_the_test_command_fails_on_a_bench_that_imports_a_renamed_symbol(tmp_path: Path) -> None:
    script = planted(
        tmp_path,
        "queue_throughput.py",
        "from adapters.sqlite import DEFAULT_SYNCHRONOUS\n\n    systems",
        "from adapters.sqlite import DEFAULT_SYNCHRONOUS_RENAMED\n\n    systems",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["VIDRELAY_BENCH_DIR"] = str(script.parent)

    done = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/bench/test_quick.py", "-p", "no:cacheprovider", "-q"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=QUICK_TIMEOUT_SECONDS,
        check=False,
    )

    assert done.returncode == 1, done.stdout + done.stderr
    failed = "FAILED tests/bench/test_quick.py::test_runs_to_the_end_in_quick_mode[queue_throughput]"
    assert failed in done.stdout, done.stdout
    assert "queue_throughput: FAILED: ImportError" in done.stdout, done.stdout
    assert "1 failed, 1 passed" in done.stdout, done.stdout
