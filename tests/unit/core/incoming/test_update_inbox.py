"""Updates are durable before Telegram hears they arrived: polling confirms (advances its offset
past) only what the inbox kept, a start replays what was kept and not handled, one chat's updates
are handled in order while other chats go on, and an update whose work the store refused is
handled again later. Virtual time throughout."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from adapters.memory.store import MemoryStore
from core.incoming.updates.lanes import Lanes
from core.incoming.updates.polling import Polling
from core.incoming.updates.receiving import Receiver
from ports.errors import StoreError
from ports.inbox import KeptUpdate, RawUpdate, UpdateNotKept
from ports.messenger import MessengerError
from tests.support.clock import VirtualClock, settle

GIVE_UP = 3600.0


def update(update_id: int, chat: int = 1) -> RawUpdate:
    return RawUpdate(update_id, f"chat:{chat}", f'{{"update_id": {update_id}}}')


class RefusingInbox(MemoryStore):
    """The memory store, whose inbox writes fail while `refusing` (with any error, not only the
    store's own type) — as a locked file or a lost connection refuses them."""

    def __init__(self) -> None:
        super().__init__()
        self.refusing: BaseException | None = None
        self.keep_tries = 0

    async def keep_updates(self, updates: Sequence[RawUpdate], now: float) -> list[KeptUpdate]:
        self.keep_tries += 1
        if self.refusing is not None:
            raise self.refusing
        return await super().keep_updates(updates, now)


class ScriptedFeed:
    """Telegram's getUpdates: hands out what is not confirmed, confirms below the offset."""

    def __init__(self) -> None:
        self.pending: list[RawUpdate] = []
        self.offsets: list[int | None] = []
        self.failing: MessengerError | None = None
        self._arrived = asyncio.Event()

    def push(self, *updates: RawUpdate) -> None:
        self.pending.extend(updates)
        self._arrived.set()

    async def fetch(self, offset: int | None, timeout_seconds: int, kinds: Sequence[str]) -> list[RawUpdate]:
        self.offsets.append(offset)
        if self.failing is not None:
            raise self.failing
        if offset is not None:
            self.pending = [u for u in self.pending if u.update_id >= offset]
        if not self.pending:
            self._arrived.clear()
            await self._arrived.wait()
        return list(self.pending)


class Handled:
    """The handlers: records each update handled, fails or blocks the ones a test chooses."""

    def __init__(self) -> None:
        self.order: list[int] = []
        self.tries: list[tuple[int, bool]] = []
        self.fail: dict[int, BaseException] = {}
        self.blocked: dict[int, asyncio.Event] = {}

    async def __call__(self, update: RawUpdate, last_try: bool) -> None:
        self.tries.append((update.update_id, last_try))
        if update.update_id in self.blocked:
            await self.blocked[update.update_id].wait()
        error = self.fail.get(update.update_id)
        if error is not None and not last_try:
            raise error
        self.order.append(update.update_id)


def lanes_over(store: MemoryStore, handled: Handled, clock: VirtualClock) -> Lanes:
    return Lanes(inbox=store, handle=handled, clock=clock, random=lambda: 0.5, give_up_seconds=GIVE_UP)


def polling_over(feed: ScriptedFeed, receiver: Receiver, clock: VirtualClock) -> Polling:
    return Polling(feed=feed, receiver=receiver, clock=clock, random=lambda: 0.5)


async def waiting_ids(store: MemoryStore) -> list[int]:
    return [k.update.update_id for k in await store.waiting_updates()]


async def test_polling_confirms_a_batch_only_once_the_inbox_kept_it(clock: VirtualClock) -> None:
    store, handled, feed = RefusingInbox(), Handled(), ScriptedFeed()
    receiver = Receiver(inbox=store, lanes=lanes_over(store, handled, clock), clock=clock, random=lambda: 0.5)
    stop = asyncio.Event()
    store.refusing = StoreError("SQLite: database is locked")
    feed.push(update(7), update(8, chat=2))
    running = asyncio.create_task(polling_over(feed, receiver, clock).run(stop, ["message"]))

    await clock.advance(60)  # a minute of refusals
    assert store.keep_tries > 3
    assert feed.offsets == [None]  # never asked again, so nothing was confirmed
    assert handled.order == []

    store.refusing = None
    await clock.advance(30)
    assert feed.offsets == [None, 9]  # confirmed once kept
    assert sorted(handled.order) == [7, 8]
    assert await waiting_ids(store) == []
    stop.set()
    await running


async def test_any_error_of_the_inbox_write_is_not_kept(clock: VirtualClock) -> None:
    store, handled, feed = RefusingInbox(), Handled(), ScriptedFeed()
    receiver = Receiver(inbox=store, lanes=lanes_over(store, handled, clock), clock=clock, random=lambda: 0.5)
    stop = asyncio.Event()
    store.refusing = RuntimeError("a driver error nobody wrapped")
    feed.push(update(1))
    running = asyncio.create_task(polling_over(feed, receiver, clock).run(stop, ["message"]))

    await clock.advance(20)
    assert feed.offsets == [None]
    store.refusing = None
    await clock.advance(20)
    assert feed.offsets == [None, 2]
    assert handled.order == [1]
    stop.set()
    await running


async def test_a_stop_while_the_inbox_refuses_leaves_the_batch_unconfirmed(clock: VirtualClock) -> None:
    store, handled, feed = RefusingInbox(), Handled(), ScriptedFeed()
    receiver = Receiver(inbox=store, lanes=lanes_over(store, handled, clock), clock=clock, random=lambda: 0.5)
    stop = asyncio.Event()
    store.refusing = StoreError("PostgreSQL: connection lost")
    feed.push(update(1))
    running = asyncio.create_task(polling_over(feed, receiver, clock).run(stop, ["message"]))
    await clock.advance(5)

    stop.set()
    await clock.advance(1)

    assert running.done()
    assert feed.offsets == [None]
    assert await waiting_ids(store) == []  # Telegram still has it, and hands it out again


async def test_a_failing_get_updates_is_asked_again_with_backoff(clock: VirtualClock) -> None:
    store, handled, feed = RefusingInbox(), Handled(), ScriptedFeed()
    receiver = Receiver(inbox=store, lanes=lanes_over(store, handled, clock), clock=clock, random=lambda: 0.5)
    stop = asyncio.Event()
    feed.failing = MessengerError("Bad Gateway", 502)
    running = asyncio.create_task(polling_over(feed, receiver, clock).run(stop, ["message"]))

    await clock.advance(60)
    asked = len(feed.offsets)
    # Backed off (1, 2, 4, then every 5 s: aiogram's own polling backoff), not a busy loop.
    assert 10 <= asked <= 16
    feed.failing = None
    feed.push(update(4))
    await clock.advance(6)  # Telegram is back: asked again within the cap
    assert handled.order == [4]
    stop.set()
    await running


async def test_a_start_replays_what_was_kept_and_not_handled_and_a_batch_handed_out_again_once(
    clock: VirtualClock,
) -> None:
    store = RefusingInbox()
    await store.keep_updates([update(1), update(2), update(3, chat=2)], clock.now())
    await store.update_handled(1, clock.now())  # handled before the crash; 2 and 3 were not
    handled, feed = Handled(), ScriptedFeed()
    receiver = Receiver(inbox=store, lanes=lanes_over(store, handled, clock), clock=clock, random=lambda: 0.5)
    stop = asyncio.Event()

    assert await receiver.replay(stop)
    feed.push(update(1), update(2), update(3, chat=2), update(4))  # never confirmed: Telegram's again
    running = asyncio.create_task(polling_over(feed, receiver, clock).run(stop, ["message"]))
    await clock.advance(1)

    assert sorted(handled.order) == [2, 3, 4]  # each once
    assert feed.offsets == [None, 5]
    stop.set()
    await running


async def test_one_chat_waits_for_its_store_call_while_other_chats_go_on(clock: VirtualClock) -> None:
    store, handled = RefusingInbox(), Handled()
    lanes = lanes_over(store, handled, clock)
    handled.blocked[1] = asyncio.Event()
    receiver = Receiver(inbox=store, lanes=lanes, clock=clock, random=lambda: 0.5)

    await receiver.receive([update(1, chat=1), update(2, chat=1), update(3, chat=2), update(4, chat=3)])
    await settle()

    assert handled.order == [3, 4]  # chat 1's first update is still with the store
    assert await waiting_ids(store) == [1, 2]
    handled.blocked[1].set()
    await settle()
    assert handled.order == [3, 4, 1, 2]  # chat 1 in its own order
    assert await waiting_ids(store) == []


async def test_an_update_whose_work_was_refused_stays_and_is_handled_again_later(clock: VirtualClock) -> None:
    store, handled = RefusingInbox(), Handled()
    lanes = lanes_over(store, handled, clock)
    receiver = Receiver(inbox=store, lanes=lanes, clock=clock, random=lambda: 0.5)
    handled.fail[1] = UpdateNotKept("the store refused the link's job")

    await receiver.receive([update(1), update(2)])
    await clock.advance(10)
    assert handled.order == []  # chat 1's next update waits behind it
    assert await waiting_ids(store) == [1, 2]  # a crash now replays both

    del handled.fail[1]
    await clock.advance(31)
    assert handled.order == [1, 2]
    assert await waiting_ids(store) == []
    assert lanes.backlog == 0


async def test_after_the_budget_the_last_try_is_told_so_and_the_update_is_done(clock: VirtualClock) -> None:
    store, handled = RefusingInbox(), Handled()
    lanes = lanes_over(store, handled, clock)
    receiver = Receiver(inbox=store, lanes=lanes, clock=clock, random=lambda: 0.5)
    handled.fail[1] = StoreError("disk full")

    await receiver.receive([update(1)])
    await clock.advance(GIVE_UP - 60)
    assert all(not last for _, last in handled.tries)
    await clock.advance(120)

    assert handled.tries[-1] == (1, True)
    assert handled.order == [1]
    assert await waiting_ids(store) == []


async def test_a_handler_bug_costs_only_its_update(clock: VirtualClock) -> None:
    store, handled = RefusingInbox(), Handled()
    receiver = Receiver(inbox=store, lanes=lanes_over(store, handled, clock), clock=clock, random=lambda: 0.5)
    handled.fail[1] = ZeroDivisionError("a bug")

    await receiver.receive([update(1), update(2)])
    await settle()

    assert handled.tries == [(1, False), (2, False)]  # tried once, not looped on
    assert handled.order == [2]
    assert await waiting_ids(store) == []


async def test_closing_stops_the_updates_still_handled_and_keeps_them_for_the_next_start(
    clock: VirtualClock,
) -> None:
    store, handled = RefusingInbox(), Handled()
    lanes = lanes_over(store, handled, clock)
    receiver = Receiver(inbox=store, lanes=lanes, clock=clock, random=lambda: 0.5)
    handled.blocked[1] = asyncio.Event()  # never set: a store call that hangs
    await receiver.receive([update(1), update(2, chat=2)])
    await settle()

    closing = asyncio.create_task(lanes.close(grace_seconds=30))
    await clock.advance(31)
    await closing

    assert handled.order == [2]
    assert await waiting_ids(store) == [1]
