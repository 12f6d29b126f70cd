"""Kept updates handled in order within a lane (a chat), lanes side by side.

An update is handled by feeding it to the bot's handlers. When its work could not be made
durable (the store refused a job, or any store call of its handler failed) its inbox row stays
and it is handled again after a jittered, capped backoff, holding its lane (the chat's next
update may depend on it: an edit of that message) while other chats go on. After
`give_up_seconds` since it was kept, the handler's last try is told so (a link then asks its
sender to send it again) and the update is marked handled whatever it does. A handler's bug
(any other error) costs that update only: logged, marked handled.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence

from core.jobs.backoff import Backoff
from core.jobs.tasks import first_of, settle
from core.lifecycle.retry_policy import Random, RetryPolicy
from ports.clock import Clock
from ports.errors import StoreError
from ports.inbox import KeptUpdate, RawUpdate, UpdateInbox, UpdateNotKept

log = logging.getLogger("vidrelay.updates")

Handle = Callable[[RawUpdate, bool], Awaitable[None]]
"""Feed one update to the handlers; the flag says it is the last try. StoreError or
UpdateNotKept: its work is not durable yet."""
RETRY_POLICY = RetryPolicy(base_seconds=0.5, cap_seconds=30.0, jitter=0.5)
MAX_BACKLOG = 1000
"""Updates taken and not yet handled beyond which polling waits before it fetches more."""


class Lanes:
    def __init__(
        self, *, inbox: UpdateInbox, handle: Handle, clock: Clock, random: Random, give_up_seconds: float
    ) -> None:
        self._inbox = inbox
        self._handle = handle
        self._clock = clock
        self._random = random
        self._give_up = give_up_seconds
        self._lanes: dict[str, deque[KeptUpdate]] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._backlog = 0
        self._room = asyncio.Event()
        self._room.set()

    @property
    def backlog(self) -> int:
        """Updates taken and not yet handled."""
        return self._backlog

    async def room(self) -> None:
        """Until fewer than MAX_BACKLOG updates wait: the handlers keep up with what is fetched."""
        await self._room.wait()

    def take(self, kept: Sequence[KeptUpdate]) -> None:
        for update in sorted(kept, key=lambda k: k.update.update_id):
            lane = update.update.lane
            self._lanes.setdefault(lane, deque()).append(update)
            self._backlog += 1
            if lane not in self._tasks:
                self._tasks[lane] = asyncio.create_task(self._run(lane), name=f"vidrelay-updates-{lane}")
        if self._backlog >= MAX_BACKLOG:
            self._room.clear()

    async def close(self, grace_seconds: float) -> None:
        """Shutdown: the updates being handled get the grace, then are stopped; every update not
        handled stays in the inbox for the next start."""
        tasks = list(self._tasks.values())
        if tasks:
            await first_of(asyncio.wait(tasks), self._clock.sleep(grace_seconds))
        for task in tasks:
            task.cancel()
        await settle(tasks)

    async def _run(self, lane: str) -> None:
        queue = self._lanes[lane]
        try:
            while queue:
                await self._handle_until_done(queue[0])
                queue.popleft()
                self._backlog -= 1
                if self._backlog < MAX_BACKLOG:
                    self._room.set()
        finally:
            del self._tasks[lane]
            if not queue:
                del self._lanes[lane]

    async def _handle_until_done(self, kept: KeptUpdate) -> None:
        update, backoff = kept.update, Backoff(RETRY_POLICY, self._random)
        fields = {"update_id": update.update_id, "lane": update.lane}
        while True:
            last_try = self._clock.now() - kept.received_at >= self._give_up
            try:
                await self._handle(update, last_try)
            except (StoreError, UpdateNotKept) as error:
                if last_try:
                    log.error(  # noqa: TRY400 - a store that refused, not a bug: no traceback
                        "update given up: its work was refused for %.0fs",
                        self._give_up,
                        extra=fields | {"error": str(error)},
                    )
                    break
                delay = backoff.next()
                log.warning(
                    "update kept, its work not durable yet; again in %.1fs",
                    delay,
                    extra=fields | {"error": str(error)},
                )
                await self._clock.sleep(delay)
                continue
            except Exception:
                log.exception("update handler failed", extra=fields)
            break
        await self._mark_handled(update, fields)

    async def _mark_handled(self, update: RawUpdate, fields: dict[str, object]) -> None:
        """Until the mark lands: a lost mark would hand the update out again at the next start."""
        backoff = Backoff(RETRY_POLICY, self._random)
        while True:
            try:
                await self._inbox.update_handled(update.update_id, self._clock.now())
            except Exception as error:  # the store's, whatever it is: try again
                log.warning("update handled, not yet marked so", exc_info=error, extra=fields)
                await self._clock.sleep(backoff.next())
                continue
            return
