"""How each yt-dlp release fared, extractor by extractor, and the releases rolled back.

Every process that shares the store judges the same releases (version strings as the updater
names them) from the same record, so a release one process rolled back is one every process
leaves. The contract (tests/contract/test_ytdlp_record.py):

- Outcomes. `record_success` and `record_failure` count one scrape of an extractor on a version.
  The failures since the extractor's last success on that version are kept by link: a link that
  fails again is still one link, so "links in a row" is what `record_failure` answers. A success
  ends the row — unless the version was rolled back: then its failed links stay, to be requeued.
- Rollbacks. `add_rollback` records a version as rolled back once; the first word stands.
- Requeue. `requeue_failed_links` puts back the jobs of the failed links of recent rollbacks, each
  link once: its dead letters (the jobs whose payload's `url` is the link and that failed since
  it first failed) go back into the queue as `retry_failed` puts them, and its jobs waiting for a
  retry become due now. A link none of whose jobs was found yet (one still running) stays open
  for a later call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Tally:
    successes: int = 0
    failures: int = 0


@dataclass(frozen=True, slots=True)
class Rollback:
    version: str
    """The release rolled back."""
    extractor: str
    """The extractor it broke."""
    to_version: str
    """What the process that decided went back to."""
    at: float


class YtDlpRecord(Protocol):
    async def record_success(self, extractor: str, version: str) -> None: ...

    async def record_failure(self, extractor: str, version: str, url: str, now: float) -> int:
        """Count a failure of `url`; how many links failed in a row (since the last success)."""
        ...

    async def tally(self, extractor: str, version: str) -> Tally: ...

    async def add_rollback(self, rollback: Rollback) -> bool:
        """False when `rollback.version` was rolled back already (nothing changes)."""
        ...

    async def rollbacks(self) -> list[Rollback]:
        """Every version rolled back, oldest first."""
        ...

    async def requeue_failed_links(self, rolled_back_since: float, now: float) -> list[int]:
        """Requeue the jobs of the failed links of the rollbacks made since `rolled_back_since`,
        each link once; the ids of the jobs requeued or made due."""
        ...
