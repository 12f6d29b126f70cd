"""Scraped-info cache and the handled-URL marks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ports.media import VideoInfo


class InfoCache(Protocol):
    """URL → scraped entries, stored under the requested URL and each canonical alias.

    A corrupt stored entry is discarded by the adapter and reported as a miss.
    """

    async def cached_info(self, url: str, fresh_after: float) -> list[VideoInfo] | None: ...

    async def cache_info(self, urls: Sequence[str], entries: Sequence[VideoInfo], now: float) -> None: ...

    async def evict_info(self, url: str) -> None:
        """Forget `url` and every alias that shares its canonical URLs."""
        ...

    async def sweep_info(self, created_before: float) -> int: ...


class HandledUrls(Protocol):
    """Which URLs of a message already became jobs (an edit re-runs only new ones), and which
    messages the bot read at all (only those may re-run when edited)."""

    async def remember_message(self, chat_id: int, message_id: int, now: float) -> None:
        """The bot read this message; swept with the URL marks."""
        ...

    async def knows_message(self, chat_id: int, message_id: int) -> bool:
        """Whether the bot read this message (remembered, or one of its URLs became a job)."""
        ...

    async def forget_handled(self, chat_id: int, message_id: int, url: str) -> None:
        """Reopen a URL after a terminal failure, so editing the message retries it."""
        ...

    async def sweep_handled(self, created_before: float) -> int: ...
