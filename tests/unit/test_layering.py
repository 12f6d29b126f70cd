"""The dependency rule is enforced by import-linter; prove a violation would be caught."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(tree / "pyproject.toml"), "--no-cache"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def tree_copy(tmp_path: Path) -> Path:
    shutil.copytree(
        ROOT / "src", tmp_path / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("core/_violation.py", "import aiosqlite\n", "No technology in the core or the ports"),
        ("core/_violation.py", "import adapters.system.clock\n", "Core imports only ports"),
        ("adapters/_violation.py", "import core.urls\n", "Adapters import only ports"),
        ("ports/_violation.py", "import core.texts\n", "Ports are the contract"),
        ("testkit/_violation.py", "import ports.clock\n", "The testkit imports nothing of the project"),
        ("adapters/_violation.py", "import testkit.loopback\n", "Only the demo imports the testkit"),
        ("entrypoints/_violation.py", "import testkit.clips\n", "Only the demo imports the testkit"),
        (
            "core/incoming/_violation.py",
            "import core.work.inline\n",
            "The handler side never imports the worker side",
        ),
        (
            "entrypoints/bot/handlers/_violation.py",
            "import core.work.delivery.failures\n",
            "The handler side never imports the worker side",
        ),
    ],
)
def test_a_layer_violation_fails_the_contract(tree_copy: Path, module: str, line: str, contract: str) -> None:
    (tree_copy / "src" / module).write_text(line)
    result = lint_imports(tree_copy)
    assert result.returncode != 0
    _, broken = result.stdout.split("Broken contracts", 1)
    assert contract in broken


def test_the_tree_as_it_is_keeps_every_contract(tree_copy: Path) -> None:
    result = lint_imports(tree_copy)
    assert result.returncode == 0, result.stdout
    assert "BROKEN" not in result.stdout
