"""`vidrelay jobs retry` beside a running bot on SQLite wakes its idle workers within a second:
the store reads the file's data_version every half second of the clock and wakes its subscribers
at the first read after another process committed (virtual time; the read stands in for SQLite)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from adapters.sqlite.notices import POLL_SECONDS, ForeignCommits
from tests.support.clock import VirtualClock, settle


class File:
    """PRAGMA data_version as another process's commits move it."""

    def __init__(self) -> None:
        self.version = 1

    async def read(self, _: Callable[..., Awaitable[int]]) -> int:
        return self.version


async def test_another_process_commit_wakes_the_workers_within_a_poll(clock: VirtualClock) -> None:
    file, wakes = File(), []
    commits = ForeignCommits(file.read, clock)
    commits.subscribe(lambda: wakes.append(clock.now()))
    try:
        await settle()
        await clock.advance(3.0)
        assert wakes == []  # nothing committed elsewhere: no wake however long it waits

        file.version += 1  # `vidrelay jobs retry` committed
        committed_at = clock.now()
        await clock.advance(POLL_SECONDS)
        assert len(wakes) == 1
        assert wakes[0] - committed_at <= POLL_SECONDS < 1.0
        await clock.advance(5.0)
        assert len(wakes) == 1  # one commit, one wake
    finally:
        await commits.close()
