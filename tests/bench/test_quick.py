"""Every bench runs to the end in quick mode, so none can rot unnoticed (issue 26).

One test per `bench/*.py` script, found by glob: a new bench is covered without a line here.
Quick mode runs the same code paths at tiny sizes and asserts no figure; what is checked is that
the bench exits 0 and prints its set-up line and its figures line, in the shape the README quotes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.quick import BENCH_DIR, benches, run_quick

pytestmark = [pytest.mark.bench, pytest.mark.slow]


def test_the_bench_folder_has_benches() -> None:
    assert benches(BENCH_DIR), f"no bench script in {BENCH_DIR}"


@pytest.mark.parametrize("script", benches(BENCH_DIR), ids=lambda p: p.stem)
def test_runs_to_the_end_in_quick_mode(script: Path) -> None:
    run = run_quick(script)

    assert run.returncode == 0, run.output()
    setup, figures = run.setup, run.figures
    assert setup["quick"] == "1", run.output()
    for fact in ("cores", "cpu", "python", "commit"):
        assert setup.get(fact), f"the set-up line lacks {fact}:\n{run.output()}"
    assert figures, run.output()
