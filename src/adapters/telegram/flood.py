"""Flood control for every Bot API call: honour 429 `retry_after`, pace sends per chat.

Telegram answers a burst with 429 "Too Many Requests: retry after N". Waiting N seconds and
sending again is what it asks for; pacing sends per chat (about one message a second in a private
chat, twenty a minute in a group) keeps a burst from turning into a storm of 429s in the first place.
Waits go through the Clock port, so tests can drive them in virtual time.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from aiogram import Bot
from aiogram.client.session.middlewares.base import BaseRequestMiddleware, NextRequestMiddlewareType
from aiogram.exceptions import TelegramRetryAfter
from aiogram.methods import Response, TelegramMethod
from aiogram.methods.base import TelegramType

from ports.clock import Clock

log = logging.getLogger(__name__)

_PACED_PREFIXES = ("send", "edit", "copy", "forward")
_UNPACED = frozenset({"sendChatAction"})
_MAX_IDLE_BUCKETS = 10_000


@dataclass(frozen=True, slots=True)
class PacingPolicy:
    """Token buckets per chat: `burst` messages at once, then `per_second` on average.

    The group default stays within Telegram's 20 messages per minute for any 60 s window
    (burst + 60 · rate = 5 + 15).
    """

    private_per_second: float = 1.0
    private_burst: int = 3
    group_per_second: float = 15 / 60
    group_burst: int = 5


class _Bucket:
    __slots__ = ("burst", "held_until", "lock", "rate", "tokens", "updated")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = float(max(burst, 1))
        self.tokens = self.burst
        self.updated = now
        self.held_until = 0.0
        self.lock = asyncio.Lock()

    def delay(self, now: float) -> float:
        """Seconds until a message may go (0: now)."""
        self.tokens = min(self.burst, self.tokens + max(now - self.updated, 0.0) * self.rate)
        self.updated = now
        if now < self.held_until:
            return self.held_until - now
        if self.tokens >= 1.0:
            return 0.0
        return (1.0 - self.tokens) / self.rate

    def idle(self, now: float) -> bool:
        return not self.lock.locked() and self.delay(now) == 0.0 and self.tokens >= self.burst


class ChatPacer:
    """Per-chat token buckets; `acquire(chat)` returns when the chat may get one more message."""

    def __init__(self, clock: Clock, policy: PacingPolicy) -> None:
        self._clock = clock
        self._policy = policy
        self._buckets: dict[int | str, _Bucket] = {}

    async def acquire(self, chat_id: int | str) -> None:
        bucket = self._bucket(chat_id)
        async with bucket.lock:
            while (wait := bucket.delay(self._clock.now())) > 0:
                await self._clock.sleep(wait)
            bucket.tokens -= 1.0

    def hold(self, chat_id: int | str, seconds: float) -> None:
        """Telegram said "retry after": nobody sends to this chat before then."""
        bucket = self._bucket(chat_id)
        bucket.held_until = max(bucket.held_until, self._clock.now() + seconds)

    def _bucket(self, chat_id: int | str) -> _Bucket:
        bucket = self._buckets.get(chat_id)
        if bucket is None:
            if len(self._buckets) >= _MAX_IDLE_BUCKETS:
                self._forget_idle()
            private = isinstance(chat_id, int) and chat_id > 0
            policy = self._policy
            rate = policy.private_per_second if private else policy.group_per_second
            burst = policy.private_burst if private else policy.group_burst
            bucket = self._buckets[chat_id] = _Bucket(rate, burst, self._clock.now())
        return bucket

    def _forget_idle(self) -> None:
        now = self._clock.now()
        for chat_id in [c for c, b in self._buckets.items() if b.idle(now)]:
            del self._buckets[chat_id]


def paced_chat(method: TelegramMethod[TelegramType]) -> int | str | None:
    """The chat a call puts a message into (sends and edits), or None for everything else."""
    name = method.__api_method__
    if name in _UNPACED or not name.startswith(_PACED_PREFIXES):
        return None
    chat_id = getattr(method, "chat_id", None)
    return chat_id if isinstance(chat_id, int | str) else None


class FloodControl(BaseRequestMiddleware):
    """Request middleware: pace per chat, then on 429 wait `retry_after` and try again.

    After `max_retries` retries, or when Telegram asks for more than `max_retry_after` seconds, the
    429 goes through to the caller (whose job then waits outside of this request).
    """

    def __init__(
        self,
        clock: Clock,
        policy: PacingPolicy | None = None,
        *,
        max_retries: int = 3,
        max_retry_after: float = 60.0,
    ) -> None:
        self._clock = clock
        self.pacer = ChatPacer(clock, policy or PacingPolicy())
        self._max_retries = max_retries
        self._max_retry_after = max_retry_after

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        chat_id = paced_chat(method)
        retries = 0
        while True:
            if chat_id is not None:
                await self.pacer.acquire(chat_id)
            try:
                return await make_request(bot, method)
            except TelegramRetryAfter as error:
                if chat_id is not None:
                    self.pacer.hold(chat_id, error.retry_after)
                if retries >= self._max_retries or error.retry_after > self._max_retry_after:
                    raise
                retries += 1
                log.warning(
                    "event=telegram_retry_after method=%s chat_id=%s retry_after=%s retry=%d",
                    method.__api_method__,
                    chat_id,
                    error.retry_after,
                    retries,
                )
                await self._clock.sleep(error.retry_after)
