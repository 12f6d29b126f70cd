"""The getUpdates loop: fetch a batch, keep it, and only then confirm it.

Telegram forgets an update once a getUpdates names a higher offset, so the offset moves past a
batch only after the inbox kept it. A batch the store refuses is offered to it again (jittered,
capped backoff) and the long poll waits meanwhile: Telegram keeps the updates, nothing is
confirmed. A stop cancels a long poll at once (nothing fetched is lost: it is not confirmed), but
lets a batch already fetched finish its current try to reach the inbox.

Each start begins with no offset: Telegram hands out again what was not confirmed, and the inbox
recognises what it kept already.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from core.incoming.updates.receiving import Receiver
from core.jobs.backoff import Backoff
from core.jobs.tasks import first_of
from core.lifecycle.retry_policy import Random, RetryPolicy
from ports.clock import Clock
from ports.inbox import RawUpdate
from ports.messenger import MessengerError
from ports.updates import UpdateFeed

log = logging.getLogger("vidrelay.updates")

POLL_SECONDS = 10
"""A long poll's wait for an update (aiogram's default)."""
# aiogram's own polling backoff (1 s, up to 5 s): Telegram back after an outage is polled again
# within seconds, so /healthz turns healthy again with it.
FETCH_RETRY = RetryPolicy(base_seconds=1.0, cap_seconds=5.0, jitter=0.25)
KEEP_RETRY = RetryPolicy(base_seconds=0.5, cap_seconds=10.0, jitter=0.5)


def long_poll_seconds(stale_seconds: float) -> int:
    """A long poll that answers well within /healthz's staleness window: a quiet bot stays healthy,
    and a getUpdates refused (a webhook set elsewhere) is heard within it."""
    return max(1, min(POLL_SECONDS, int(stale_seconds / 3)))


class Polling:
    def __init__(
        self,
        *,
        feed: UpdateFeed,
        receiver: Receiver,
        clock: Clock,
        random: Random,
        poll_seconds: int = POLL_SECONDS,
    ) -> None:
        self._feed = feed
        self._receiver = receiver
        self._clock = clock
        self._random = random
        self._poll_seconds = poll_seconds

    async def run(self, stop: asyncio.Event, kinds: Sequence[str]) -> None:
        """Until `stop`; `kinds`: the update types the handlers use (Telegram sends only those).
        Errors of Telegram or of the store are waited out, never raised."""
        offset: int | None = None
        fetch_errors = Backoff(FETCH_RETRY, self._random)
        while not stop.is_set():
            await first_of(self._receiver.room(), stop.wait())
            if stop.is_set():
                return
            try:
                batch = await first_of(self._feed.fetch(offset, self._poll_seconds, kinds), stop.wait())
            except MessengerError as error:
                delay = fetch_errors.next()
                log.warning(
                    "getUpdates failed, asking again in %.1fs", delay, extra={"error": error.description}
                )
                await first_of(self._clock.sleep(delay), stop.wait())
                continue
            fetch_errors.reset()
            if not batch:  # a long poll that ended empty, or the stop
                continue
            if not await self._keep(batch, stop):
                return
            offset = max(u.update_id for u in batch) + 1

    async def _keep(self, batch: list[RawUpdate], stop: asyncio.Event) -> bool:
        """Until the inbox kept `batch` (True), or a stop came (False: not confirmed)."""
        backoff = Backoff(KEEP_RETRY, self._random)
        while True:
            try:
                await self._receiver.receive(batch)  # a stop waits for this try to end
            except Exception as error:  # whatever the store raised: not kept
                if stop.is_set():
                    log.warning(
                        "stopping with %d update(s) not kept: Telegram delivers them again",
                        len(batch),
                        exc_info=error,
                    )
                    return False
                delay = backoff.next()
                log.warning(
                    "%d update(s) not kept, so not confirmed to Telegram; again in %.1fs",
                    len(batch),
                    delay,
                    exc_info=error,
                )
                await first_of(self._clock.sleep(delay), stop.wait())
                continue
            return True
