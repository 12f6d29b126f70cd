"""What the yt-dlp updater's last check found, written by its periodic job (work.periodic) and
read by `/status` and `/metrics` (core.status)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from core.texts.reasons import last_update_check


@dataclass
class UpdateStatus:
    """What /status says about the updater."""

    checked_at: float | None = None
    version: str | None = None
    error: str | None = None
    outcomes: Counter[str] = field(default_factory=Counter)
    """Checks by outcome since start: updated, unchanged, failed (for the metrics)."""

    def describe(self) -> str:
        return last_update_check(self.checked_at, self.error)
