"""Small modules that hold one idea: the median module under src/ is at most 60 lines and none
is over 350 (the house style in ../shared/ARCHITECTURE.md). Every .py file counts, `__init__.py`
included: a package's map is a module a reader opens too.

A module that grows past the bound is split along its ideas, never squeezed: the docstrings and
comments that say why stay.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from tests.support.deploy_files import ROOT

SRC = ROOT / "src"
MAX_LINES = 350
MEDIAN_LINES = 60
OVER_FOR_NOW: dict[str, str] = {}
"""Modules known to be over MAX_LINES, each with the work that ends it; an entry that is no longer
over the bound fails the test, so the exception does not outlive its reason."""


def line_counts(src: Path) -> dict[str, int]:
    return {
        path.relative_to(src).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(src.rglob("*.py"))
    }


def oversized(counts: dict[str, int], allowed: dict[str, str]) -> list[str]:
    return sorted(name for name, lines in counts.items() if lines > MAX_LINES and name not in allowed)


def stale_exceptions(counts: dict[str, int], allowed: dict[str, str]) -> list[str]:
    return sorted(name for name in allowed if counts.get(name, 0) <= MAX_LINES)


def test_no_module_is_over_the_bound() -> None:
    counts = line_counts(SRC)
    assert oversized(counts, OVER_FOR_NOW) == [], f"split these along their ideas (max {MAX_LINES} lines)"
    assert stale_exceptions(counts, OVER_FOR_NOW) == [], "under the bound now: drop them from OVER_FOR_NOW"


def test_the_median_module_is_small() -> None:
    counts = line_counts(SRC)
    median = statistics.median(counts.values())
    assert median <= MEDIAN_LINES, (
        f"median module {median} lines over {len(counts)} modules: split the ones holding two ideas"
    )


def test_the_size_checks_see_a_module_too_long(tmp_path: Path) -> None:
    package = tmp_path / "core"
    package.mkdir()
    (package / "__init__.py").write_text('"""A map."""\n')
    (package / "small.py").write_text("x = 1\n" * 10)
    (package / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    (package / "excused.py").write_text("x = 1\n" * (MAX_LINES + 1))
    counts = line_counts(tmp_path)
    assert counts == {"core/__init__.py": 1, "core/excused.py": 351, "core/long.py": 351, "core/small.py": 10}
    assert oversized(counts, {"core/excused.py": "why"}) == ["core/long.py"]
    assert stale_exceptions(counts, {"core/small.py": "why", "core/excused.py": "why"}) == ["core/small.py"]
