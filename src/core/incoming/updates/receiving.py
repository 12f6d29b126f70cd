"""A batch of updates is kept in the inbox, and only then handed to the lanes.

`receive` raises when the batch is not kept (whatever the store raised): the caller must then not
acknowledge it — polling does not advance its offset, the webhook answers 503 — and Telegram
delivers it again. An update the inbox knew already (a batch handed out again after a crash) is
not handed out twice: the start replays what was kept and not handled (`replay`), before any
new batch is received.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from core.incoming.updates.lanes import RETRY_POLICY, Lanes
from core.jobs.backoff import Backoff
from core.jobs.tasks import first_of
from core.lifecycle.retry_policy import Random
from ports.clock import Clock
from ports.inbox import RawUpdate, UpdateInbox

log = logging.getLogger("vidrelay.updates")


class Receiver:
    def __init__(self, *, inbox: UpdateInbox, lanes: Lanes, clock: Clock, random: Random) -> None:
        self._inbox = inbox
        self._lanes = lanes
        self._clock = clock
        self._random = random

    async def replay(self, stop: asyncio.Event) -> bool:
        """Hand out what an earlier process kept and did not handle, asking the inbox again
        (backoff) while it cannot be read; False when `stop` came first (nothing handed out)."""
        backoff = Backoff(RETRY_POLICY, self._random)
        while not stop.is_set():
            try:
                waiting = await self._inbox.waiting_updates()
            except Exception as error:  # whatever the store raised: ask again
                delay = backoff.next()
                log.warning("the inbox cannot be read to replay it, again in %.1fs", delay, exc_info=error)
                await first_of(self._clock.sleep(delay), stop.wait())
                continue
            if waiting:
                log.warning("replaying %d update(s) kept before the last stop and not handled", len(waiting))
            self._lanes.take(waiting)
            return True
        return False

    async def receive(self, updates: Sequence[RawUpdate]) -> None:
        """Keep `updates` (one transaction), then hand the new ones to their lanes."""
        self._lanes.take(await self._inbox.keep_updates(updates, self._clock.now()))

    async def room(self) -> None:
        await self._lanes.room()
