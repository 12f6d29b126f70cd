"""The process table, read from /proc (no psutil): which processes are still alive."""

from __future__ import annotations

import os
from pathlib import Path

_PROC = Path("/proc")


def pids_mentioning(marker: str) -> list[int]:
    """Live processes (zombies excluded) whose command line contains `marker`."""
    found = []
    own = os.getpid()
    for entry in _PROC.iterdir():
        if not entry.name.isdigit() or int(entry.name) == own:
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = _state(entry)
        except OSError:
            continue  # it ended while we looked
        if marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return sorted(found)


def _state(entry: Path) -> str:
    stat = (entry / "stat").read_text()
    # The command name in parentheses may itself contain spaces and parentheses.
    return stat[stat.rindex(")") + 2 :].split(" ", 1)[0]
