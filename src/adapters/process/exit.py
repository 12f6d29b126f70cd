"""How a child process ended, as the runner saw it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Exit:
    exit_code: int | None
    """None when it was killed by a signal, never started, or its status was lost."""
    signal: int | None
    stderr_tail: str
    timed_out_after: float | None = None
    aborted: bool = False
    """Stopped by `ChildProcesses.shutdown()`: the process is going away, not the child's fault."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.aborted and self.timed_out_after is None

    def describe(self) -> str:
        """How it ended, in a few words for a log line or an error."""
        if self.aborted:
            return "stopped for shutdown"
        if self.timed_out_after is not None:
            return f"timed out after {self.timed_out_after:g} s"
        if self.signal is not None:
            return f"killed by signal {self.signal}"
        if self.exit_code is None:
            return "no exit status"
        return f"exit status {self.exit_code}"
