"""Telegram's flood limits, enforced only when a test asks for them (other tests stay fast).

The Bot FAQ ("My bot is hitting limits, how do I avoid this?"): inside one chat, avoid more than
one message per second — short bursts are tolerated, then 429s follow; no more than 20 messages per
minute to the same group; about 30 messages per second overall. Beyond them the real API answers
`429 {"description": "Too Many Requests: retry after N", "parameters": {"retry_after": N}}`.

Edits count like messages (they draw 429s on the real API too); chat actions, reactions and
answers do not; an album counts one message per item. A call is admitted (its share taken)
before it runs, so two concurrent calls cannot both squeeze into the last slot, and a call the
method then refuses (a 400, "message is not modified") gives its share back: only delivered
messages count.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from testkit.telegram.errors import too_many_requests

_NOT_MESSAGES = frozenset({"sendchataction"})
_MESSAGE_PREFIXES = ("send", "edit", "copy", "forward")


@dataclass(frozen=True, slots=True)
class FloodLimits:
    """Telegram's documented limits; `chat_burst` is how many messages at once a chat tolerates."""

    chat_per_second: float = 1.0
    chat_burst: int = 4
    group_messages: int = 20
    group_window_seconds: float = 60.0
    global_per_second: float = 30.0
    global_burst: int = 30


def counts_as_message(method: str) -> bool:
    name = method.lower()
    return name not in _NOT_MESSAGES and name.startswith(_MESSAGE_PREFIXES)


@dataclass(slots=True)
class _Bucket:
    """`burst` messages at once, refilled at `rate` a second."""

    rate: float
    burst: float
    tokens: float
    updated: float

    def wait(self, now: float, count: int = 1) -> float:
        self.tokens = min(self.burst, self.tokens + max(now - self.updated, 0.0) * self.rate)
        self.updated = now
        needed = min(float(count), self.burst)  # a burst-sized album goes once the bucket is full
        return 0.0 if self.tokens >= needed else (needed - self.tokens) / self.rate

    def take(self, count: int = 1) -> None:
        self.tokens -= count

    def give_back(self, count: int = 1) -> None:
        self.tokens = min(self.burst, self.tokens + count)


@dataclass(slots=True)
class _Window:
    """At most `size` messages in any `seconds` long window."""

    size: int
    seconds: float
    sent: deque[float] = field(default_factory=deque)

    def wait(self, now: float, count: int = 1) -> float:
        while self.sent and self.sent[0] <= now - self.seconds:
            self.sent.popleft()
        needed = min(count, self.size)
        free = self.size - len(self.sent)
        return 0.0 if needed <= free else self.sent[needed - free - 1] + self.seconds - now

    def take(self, now: float, count: int = 1) -> None:
        self.sent.extend([now] * count)

    def give_back(self, at: float, count: int = 1) -> None:
        for _ in range(count):
            if at in self.sent:
                self.sent.remove(at)


@dataclass(frozen=True, slots=True)
class Admission:
    """What an admitted call took, so that a refused call can give it back."""

    chat_id: int | None
    at: float
    count: int = 1


class FloodGate:
    def __init__(self, limits: FloodLimits, now: Callable[[], float] = time.monotonic) -> None:
        self._limits = limits
        self._now = now
        self._global = _Bucket(limits.global_per_second, limits.global_burst, limits.global_burst, now())
        self._chats: dict[int, _Bucket] = {}
        self._groups: dict[int, _Window] = {}

    def admit(self, method: str, chat_id: int | None, count: int = 1) -> Admission | None:
        """Take this call's share (`count` messages: an album's items), or raise the 429 Telegram
        would answer; None: not a message."""
        if not counts_as_message(method):
            return None
        now = self._now()
        limits = [self._global.wait(now, count)]
        if chat_id is not None:
            limits.append(self._chat(chat_id, now).wait(now, count))
            if chat_id < 0:
                limits.append(self._group(chat_id).wait(now, count))
        wait = max(limits)
        if wait > 0:
            raise too_many_requests(max(1, math.ceil(wait)))
        self._global.take(count)
        if chat_id is not None:
            self._chats[chat_id].take(count)
            if chat_id < 0:
                self._groups[chat_id].take(now, count)
        return Admission(chat_id, now, count)

    def give_back(self, admission: Admission) -> None:
        count = admission.count
        self._global.give_back(count)
        if admission.chat_id is None:
            return
        self._chats[admission.chat_id].give_back(count)
        if admission.chat_id < 0:
            self._groups[admission.chat_id].give_back(admission.at, count)

    def _chat(self, chat_id: int, now: float) -> _Bucket:
        bucket = self._chats.get(chat_id)
        if bucket is None:
            burst = float(self._limits.chat_burst)
            bucket = self._chats[chat_id] = _Bucket(self._limits.chat_per_second, burst, burst, now)
        return bucket

    def _group(self, chat_id: int) -> _Window:
        window = self._groups.get(chat_id)
        if window is None:
            limits = self._limits
            window = self._groups[chat_id] = _Window(limits.group_messages, limits.group_window_seconds)
        return window
