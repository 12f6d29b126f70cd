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


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        return _state(_PROC / str(pid)) != "Z"
    except OSError:
        return False


def descendants(pid: int) -> list[int]:
    """The live processes below `pid` (children, theirs, ...), found by their parent ids."""
    children: dict[int, list[int]] = {}
    for entry in _PROC.iterdir():
        if entry.name.isdigit():
            try:
                children.setdefault(_parent(entry), []).append(int(entry.name))
            except OSError:
                continue  # it ended while we looked
    found, below = [], list(children.get(pid, []))
    while below:
        child = below.pop()
        found.append(child)
        below.extend(children.get(child, []))
    return sorted(p for p in found if alive(p))


def command_line(pid: int) -> str:
    try:
        return (_PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _parent(entry: Path) -> int:
    stat = (entry / "stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split(" ", 2)[1])
