"""When a chat, and the bot as a whole, may get one more message: Telegram's flood limits, sender side.

Telegram's Bot FAQ: inside one chat about one message a second, short bursts tolerated; no more
than 20 messages a minute to one group; about 30 a second overall. Each chat is a lane (a token
bucket, and for groups a sliding minute on top); the bot is one more lane. In a lane, messages
wait by `Turn` — a video (an album: one message per item) before a new message before an
edit — and an edit goes only while
`edit_reserve` messages stay untouched, so a video that comes after it never waits for it.
A lane is a queue, not a lock: nothing in one chat waits for another chat. Waits go through the
Clock port.
"""

from __future__ import annotations

import asyncio
import bisect
import itertools
from collections import deque
from dataclasses import dataclass

from ports.clock import Clock
from ports.pacing import SendPacing, Turn

_MAX_IDLE_LANES = 10_000
_WINDOW_WAIT_CAP_SECONDS = 3600.0
_RESOLUTION_SECONDS = 0.001
"""The shortest sleep: a wait of 1e-12 s (float arithmetic) would wake to the same instant forever."""


@dataclass(frozen=True, slots=True)
class PacingPolicy:
    """Slightly inside Telegram's limits: our clock starts before the request's trip, Telegram's after."""

    private_per_second: float = 1.0
    private_burst: int = 3
    group_per_second: float = 1.0
    group_burst: int = 3
    group_per_window: int = 20
    group_window_seconds: float = 61.0
    """Telegram's minute plus a second, so a request that travels faster than the one before it
    still lands outside the window."""
    overall_per_second: float = 25.0
    overall_burst: int = 25
    edit_reserve: int = 1


@dataclass(slots=True)
class _Window:
    size: int
    seconds: float
    sent: deque[float]

    def free_in(self, now: float, needed: int) -> float:
        while self.sent and self.sent[0] <= now - self.seconds:
            self.sent.popleft()
        free = self.size - len(self.sent)
        if needed <= free:
            return 0.0
        if needed > self.size:
            return _WINDOW_WAIT_CAP_SECONDS
        return self.sent[needed - free - 1] + self.seconds - now


class _Lane:
    """One queue of messages: a token bucket, an optional sliding window, and Telegram's hold."""

    def __init__(self, clock: Clock, rate: float, burst: int, window: _Window | None) -> None:
        self._clock = clock
        self._rate = rate
        self._burst = float(max(burst, 1))
        self._tokens = self._burst
        self._updated = clock.now()
        self._window = window
        self.held_until = 0.0
        self._waiters: list[tuple[int, int]] = []
        self._order = itertools.count()
        self._changed = asyncio.Event()

    def free_in(self, now: float, needed: int) -> float:
        """Seconds until `needed` messages could go at once (0: now). More than a burst goes once
        the bucket is full, and the lane owes the rest (its tokens go below zero)."""
        self._tokens = min(self._burst, self._tokens + max(now - self._updated, 0.0) * self._rate)
        self._updated = now
        wait = max(self.held_until - now, 0.0)
        bucket_needs = min(float(needed), self._burst)
        if self._tokens < bucket_needs:
            wait = max(wait, (bucket_needs - self._tokens) / self._rate)
        if self._window is not None:
            wait = max(wait, self._window.free_in(now, min(needed, self._window.size)))
        return wait

    def wait_seconds(self, turn: Turn, reserve: int, count: int = 1) -> float:
        ahead = sum(1 for priority, _ in self._waiters if priority <= turn)
        return self.free_in(self._clock.now(), ahead + count + reserve)

    async def acquire(self, turn: Turn, reserve: int, count: int = 1) -> None:
        ticket = (int(turn), next(self._order))
        bisect.insort(self._waiters, ticket)
        self._notify()
        try:
            while True:
                changed = self._changed
                wait: float | None = None
                if self._waiters[0] == ticket:
                    now = self._clock.now()
                    wait = self.free_in(now, count + reserve)
                    if wait <= 0:
                        self._take(now, count)
                        return
                await _first_of(changed, self._clock, wait)
        finally:
            self._waiters.remove(ticket)
            self._notify()

    def _take(self, now: float, count: int) -> None:
        self._tokens -= count
        if self._window is not None:
            self._window.sent.extend([now] * count)

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def idle(self, now: float) -> bool:
        return not self._waiters and self.free_in(now, int(self._burst)) == 0.0


async def _first_of(changed: asyncio.Event, clock: Clock, wait: float | None) -> None:
    """Until the lane changes, or `wait` seconds have passed (None: only a change)."""
    tasks: list[asyncio.Future[object]] = [asyncio.ensure_future(changed.wait())]
    if wait is not None:
        tasks.append(asyncio.ensure_future(clock.sleep(max(wait, _RESOLUTION_SECONDS))))
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


class ChatPacer(SendPacing):
    def __init__(self, clock: Clock, policy: PacingPolicy | None = None) -> None:
        self._clock = clock
        self._policy = policy or PacingPolicy()
        self._lanes: dict[int | str, _Lane] = {}
        self._overall = _Lane(clock, self._policy.overall_per_second, self._policy.overall_burst, None)

    async def acquire(self, chat_id: int | str | None, turn: Turn = Turn.MESSAGE, count: int = 1) -> None:
        """Return when `count` more messages of this kind (an album's items) may go to the chat
        (None: no chat, only the bot's overall pace), and count them as sent."""
        reserve = self._reserve(turn)
        if chat_id is not None:
            await self._lane(chat_id).acquire(turn, reserve, count)
        await self._overall.acquire(turn, reserve, count)

    def wait_seconds(self, chat_id: int, turn: Turn, count: int = 1) -> float:
        reserve = self._reserve(turn)
        return max(
            self._lane(chat_id).wait_seconds(turn, reserve, count),
            self._overall.wait_seconds(turn, reserve, count),
        )

    def hold(self, chat_id: int | str, seconds: float) -> None:
        """Telegram said "retry after": nobody sends to this chat before then."""
        lane = self._lane(chat_id)
        lane.held_until = max(lane.held_until, self._clock.now() + seconds)

    def _reserve(self, turn: Turn) -> int:
        return self._policy.edit_reserve if turn is Turn.EDIT else 0

    def _lane(self, chat_id: int | str) -> _Lane:
        lane = self._lanes.get(chat_id)
        if lane is None:
            if len(self._lanes) >= _MAX_IDLE_LANES:
                self._forget_idle()
            lane = self._lanes[chat_id] = self._new_lane(chat_id)
        return lane

    def _new_lane(self, chat_id: int | str) -> _Lane:
        policy = self._policy
        if isinstance(chat_id, int) and chat_id > 0:
            return _Lane(self._clock, policy.private_per_second, policy.private_burst, None)
        window = _Window(policy.group_per_window, policy.group_window_seconds, deque())
        return _Lane(self._clock, policy.group_per_second, policy.group_burst, window)

    def _forget_idle(self) -> None:
        now = self._clock.now()
        for chat_id in [c for c, lane in self._lanes.items() if lane.idle(now)]:
            del self._lanes[chat_id]
