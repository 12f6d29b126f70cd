"""Running a bench in quick mode the way a contributor does, and reading its two lines back."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCH_DIR = Path(os.environ.get("VIDRELAY_BENCH_DIR", REPO / "bench"))
"""Where the benches are; the test of a broken bench points a run of the suite elsewhere."""
QUICK_TIMEOUT_SECONDS = 300
"""A bound so a hung bench cannot hang the suite; a quick run takes seconds."""
_MAIN = 'if __name__ == "__main__":'


def benches(folder: Path = BENCH_DIR) -> list[Path]:
    """Every script in the folder is a bench; the modules they share (harness.py) have no main."""
    return sorted(p for p in folder.glob("*.py") if _MAIN in p.read_text())


@dataclass(frozen=True, slots=True)
class QuickRun:
    name: str
    returncode: int
    stdout: str
    stderr: str

    def output(self) -> str:
        return f"exit {self.returncode}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"

    def fields(self, prefix: str) -> dict[str, str]:
        """The `key=value` fields of the one line that starts with `prefix`."""
        lines = [line for line in self.stdout.splitlines() if line.startswith(prefix)]
        assert len(lines) == 1, f"{len(lines)} lines start with {prefix!r}:\n{self.output()}"
        pairs = [word.partition("=") for word in shlex.split(lines[0][len(prefix) :])]
        assert all(sep for _, sep, _ in pairs), f"not all key=value: {lines[0]!r}"
        return {key: value for key, _, value in pairs}

    @property
    def setup(self) -> dict[str, str]:
        return self.fields(f"{self.name} setup: ")

    @property
    def figures(self) -> dict[str, str]:
        return self.fields(f"{self.name}: ")


def run_quick(script: Path) -> QuickRun:
    done = subprocess.run(
        [sys.executable, str(script), "--quick"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=QUICK_TIMEOUT_SECONDS,
        check=False,
    )
    return QuickRun(script.stem, done.returncode, done.stdout, done.stderr)
