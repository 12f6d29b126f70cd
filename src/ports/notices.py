"""Work announced by other processes: the store that many processes share tells idle workers.

A store shared by several processes (PostgreSQL) announces every enqueue and every row let go
for later (a retry, a release); an adapter that offers this port calls each `wake` on every
announcement, and once more whenever its subscription was lost and came back, since
announcements made meanwhile are gone. Waking is only a hint: the engine then asks the store
what is claimable, and its own timers stay the fallback.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable


@runtime_checkable
class WorkNotices(Protocol):
    def on_work(self, wake: Callable[[], None]) -> None:
        """Call `wake` (on the event loop) whenever work may have become claimable elsewhere."""
        ...

    def on_quick_work(self, wake: Callable[[], None]) -> None:
        """Call `wake` (on the event loop) whenever another process enqueued a quick row (a
        cache hit, ports.queue), and once more whenever the subscription came back."""
        ...

    def on_cancel(self, check: Callable[[], None]) -> None:
        """Call `check` (on the event loop) whenever some process marked a held row cancelled
        (ports.cancels), and once more whenever the subscription came back."""
        ...
