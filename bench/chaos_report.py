"""What one run of a system through one chaos cell shows, read from the files its processes wrote
(bench/chaos_systems.py): jobs produced, completed, lost, run twice, recovery, pickup latency."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REDELIVERY_WINDOW_SECONDS = 1.0
"""A job whose run ended this soon before its process was SIGKILLed may have died before its
completion committed: running it again is at-least-once delivery, not a fault of the queue."""
RATE_RECOVERED = 0.9
"""The method's test: the recovery phase completes at least 90 % of the baseline's rate."""


@dataclass(frozen=True)
class Phases:
    warmup: float
    baseline: float
    chaos: float
    recovery: float
    """Absolute times (time.time()) at which each phase starts; `ended` closes the last."""
    ended: float


@dataclass
class Outcome:
    system: str
    cell: str
    produced: int = 0
    completed: int = 0
    lost: int = 0
    dup: int = 0
    redelivered: int = 0
    """Run again after the process running it was SIGKILLed (at-least-once), see the window."""
    reenqueued: int = 0
    """Run twice because the producer's retried enqueue made a second job (no dedupe held)."""
    recoveries: list[float | None] = field(default_factory=list)
    """Per fault: seconds from its end until every job acknowledged before it had run."""
    rate_ratio: float = 0.0
    before: tuple[float, float] = (0.0, 0.0)
    after: tuple[float, float] = (0.0, 0.0)
    """Pickup latency p50/p99 in ms, of the jobs enqueued in the baseline / the recovery phase."""

    @property
    def recovered(self) -> bool:
        drained = all(r is not None for r in self.recoveries)
        return self.lost == 0 and drained and self.rate_ratio >= RATE_RECOVERED

    def row(self) -> str:
        recoveries = ", ".join("never" if r is None else f"{r:.1f}" for r in self.recoveries)
        return (
            f"| {self.cell} | {self.system} | {self.produced} | {self.completed} | {self.lost} | {self.dup}"
            f" | {self.redelivered + self.reenqueued} | {recoveries} | {self.rate_ratio:.0%}"
            f" | {self.before[0]:.0f} / {self.before[1]:.0f} | {self.after[0]:.0f} / {self.after[1]:.0f}"
            f" | {'yes' if self.recovered else 'NO'} |"
        )


HEADER = (
    "| cell | system | produced | completed | lost | run twice | run again (crash / re-enqueue) |"
    " recovery s | recovery rate | pickup p50 / p99 ms before | after | recovered |\n"
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
)


def outcome(
    system: str, cell: str, folder: Path, phases: Phases, fault_ends: list[float], kills: dict[int, float]
) -> Outcome:
    """`kills`: pid → when the bench SIGKILLed it."""
    produced = _produced(folder / "produced.txt")
    runs = _runs(folder)
    found = Outcome(system, cell, produced=len(produced))
    first: dict[int, tuple[float, float]] = {}
    for n, enqueued_at, started, _ in sorted(runs, key=lambda r: r[2]):
        if n not in first:
            first[n] = (enqueued_at, started)
            continue
        earlier = [(at, pid) for m, _, at, pid in runs if m == n and at < started]
        if any(0 <= kills.get(pid, -1e18) - at <= REDELIVERY_WINDOW_SECONDS for at, pid in earlier):
            found.redelivered += 1
        elif produced.get(n, (0.0, False))[1]:
            found.reenqueued += 1
        else:
            found.dup += 1
    found.completed = len(set(produced) & set(first))
    found.lost = len(set(produced) - set(first))
    for end in fault_ends:
        before = [n for n, (acked, _) in produced.items() if acked <= end]
        found.recoveries.append(
            None if any(n not in first for n in before) else max([first[n][1] - end for n in before] + [0.0])
        )
    found.rate_ratio = _rate(first, phases.recovery, phases.ended) / max(
        _rate(first, phases.baseline, phases.chaos), 1e-9
    )
    found.before = _latency(first, phases.baseline, phases.chaos)
    found.after = _latency(first, phases.recovery, phases.ended)
    return found


def _produced(path: Path) -> dict[int, tuple[float, bool]]:
    produced: dict[int, tuple[float, bool]] = {}
    for line in path.read_text().splitlines() if path.exists() else []:
        parts = line.split()
        if len(parts) == 3:
            produced[int(parts[0])] = (float(parts[1]), parts[2] == "1")
    return produced


def _runs(folder: Path) -> list[tuple[int, float, float, int]]:
    runs = []
    for path in sorted(folder.glob("runs-*.txt")):
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) == 4:  # a line cut by a SIGKILL mid-write is no run
                runs.append((int(parts[0]), float(parts[1]), float(parts[2]), int(parts[3])))
    return runs


def _rate(first: dict[int, tuple[float, float]], start: float, end: float) -> float:
    return sum(1 for _, started in first.values() if start <= started < end) / max(end - start, 1e-9)


def _latency(first: dict[int, tuple[float, float]], start: float, end: float) -> tuple[float, float]:
    waits = sorted(
        (started - enqueued) * 1000 for enqueued, started in first.values() if start <= enqueued < end
    )
    return (statistics.median(waits), _p99(waits)) if waits else (0.0, 0.0)


def _p99(values: list[float]) -> float:
    return values[min(len(values) - 1, int(len(values) * 0.99))]


def summary(outcomes: list[Outcome], system: str) -> tuple[str, dict[str, object]]:
    """A system's line, `chaos SYSTEM: lost=… dup=… recovered=k/n …`, and its figures."""
    mine = [o for o in outcomes if o.system == system]
    kills = [r for o in mine if o.cell in ("crash_recovery", "repeated_kills") for r in o.recoveries]
    known = sorted(r for r in kills if r is not None)
    by_cell: dict[str, bool] = defaultdict(bool)
    for o in mine:
        by_cell[o.cell] = o.recovered
    values: dict[str, object] = {
        "lost": sum(o.lost for o in mine),
        "dup": sum(o.dup for o in mine),
        "recovered": f"{sum(by_cell.values())}/{len(by_cell)}",
        "redelivered": sum(o.redelivered for o in mine),
        "reenqueued": sum(o.reenqueued for o in mine),
        "sigkill_recovery_p99_s": _p99_text(known, len(kills)),
        "failed_cells": ",".join(c for c, ok in by_cell.items() if not ok) or "-",
    }
    return f"chaos {system}: " + " ".join(f"{k}={v}" for k, v in values.items()), values


def _p99_text(known: list[float], faults: int) -> str:
    """The p99 of the recoveries, "never" when one never happened, "-" without any fault."""
    if len(known) < faults:
        return "never"
    return f"{_p99(known):.1f}" if known else "-"
