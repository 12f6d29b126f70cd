"""bench/harness.py: --quick sizes, the two lines, and a non-zero exit for every way a bench fails.

Each case is a small script beside a copy of the harness, run as a bench is run (its own process).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.bench.quick import QUICK_TIMEOUT_SECONDS, REPO, QuickRun

pytestmark = pytest.mark.slow

_SCRIPT = '''
"""A probe of the harness."""
import asyncio
import sys

import harness

bench = harness.Bench("probe", __doc__)
bench.size("--items", 1000, quick=3, help="items")


async def measure(args):
    bench.setup(libraries=("pytest",), label="two words")
{body}


if __name__ == "__main__":
    bench.run(measure, bench.parse())
'''


def run_probe(tmp_path: Path, body: str, *args: str) -> QuickRun:
    shutil.copy(REPO / "bench" / "harness.py", tmp_path)
    script = tmp_path / "probe.py"
    script.write_text(_SCRIPT.format(body=textwrap.indent(textwrap.dedent(body), "    ")))
    done = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=QUICK_TIMEOUT_SECONDS,
        check=False,
    )
    return QuickRun("probe", done.returncode, done.stdout, done.stderr)


def test_quick_takes_the_tiny_sizes_and_the_lines_read_back(tmp_path: Path) -> None:
    figures = "bench.figures(items=args.items, ratio=1.234, rate=1234.5, small=12.34)"
    run = run_probe(tmp_path, figures, "--quick")

    assert run.returncode == 0, run.output()
    assert run.setup["quick"] == "1"
    assert run.setup["items"] == "3"
    assert run.setup["label"] == "two words"
    assert run.setup["pytest"] == pytest.__version__
    assert run.figures == {"items": "3", "ratio": "1.23", "rate": "1234", "small": "12.3"}


def test_full_size_by_default_and_an_explicit_size_wins(tmp_path: Path) -> None:
    full = run_probe(tmp_path, "bench.figures(items=args.items)")
    explicit = run_probe(tmp_path, "bench.figures(items=args.items)", "--quick", "--items", "7")

    assert (full.setup["quick"], full.figures["items"]) == ("0", "1000"), full.output()
    assert explicit.figures["items"] == "7", explicit.output()


@pytest.mark.parametrize(
    ("body", "why"),
    [
        pytest.param('raise RuntimeError("planted")', "RuntimeError: planted", id="exception"),
        pytest.param(
            'bench.expect(2 + 2 == 5, "4 jobs done of 5")', "BenchFailed: 4 jobs done of 5", id="count"
        ),
        pytest.param("pass", "it printed 0 figures line(s), not one", id="no-figures"),
        pytest.param(
            "bench.figures(n=1)\nbench.figures(n=2)",
            "it printed 2 figures line(s), not one",
            id="two-figures",
        ),
        pytest.param("bench.figures(n=1)\nreturn 2", "it returned 2", id="non-zero-return"),
        pytest.param(
            'bench.figures(n=1)\nsys.exit("the child failed:\\nits stderr")',
            "it exited with the child failed:",
            id="system-exit",
        ),
        pytest.param(
            """
            child = await asyncio.create_subprocess_exec(sys.executable, "-c", "raise SystemExit(3)")
            async with harness.alive(child.wait(), "the child"):
                await asyncio.sleep(3600)
            bench.figures(n=1)
            """,
            "BenchFailed: the child exited (code 3) while the bench ran",
            id="child-died",
        ),
        pytest.param('bench.figures(**{"two words": 1})', "is not a figure name", id="bad-name"),
    ],
)
def test_every_failure_exits_non_zero_and_names_itself(tmp_path: Path, body: str, why: str) -> None:
    run = run_probe(tmp_path, body, "--quick")

    assert run.returncode == 1, run.output()
    [failed] = [line for line in run.stderr.splitlines() if line.startswith("probe: FAILED: ")]
    assert why in failed, run.output()
