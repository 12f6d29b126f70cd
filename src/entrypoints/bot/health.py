"""Is this process doing its work? What `/healthz` answers, and Docker's HEALTHCHECK reads.

Healthy means: updates come in (the polling loop runs, or the webhook server listens) and every
worker task the engine should have is alive. A bot that lost either one looks fine from outside
— the process is up, the port answers — while links pile up unanswered: exactly what a health
check is for.
"""

from __future__ import annotations

import asyncio
from typing import Protocol


class Receiving:
    """Whether updates come in right now."""

    def __init__(self) -> None:
        self._polling: asyncio.Future[None] | None = None
        self._webhook = False

    def polling(self, task: asyncio.Future[None]) -> None:
        self._polling = task

    def webhook(self, listening: bool) -> None:
        self._webhook = listening

    def stopped(self) -> None:
        self._polling, self._webhook = None, False

    @property
    def alive(self) -> bool:
        return self._webhook or (self._polling is not None and not self._polling.done())


class Workers(Protocol):
    @property
    def live_workers(self) -> int: ...

    @property
    def worker_count(self) -> int:
        """How many worker tasks the engine should have while it runs."""
        ...


def health_problem(receiving: Receiving, workers: Workers) -> str | None:
    """Why this process is unhealthy, in a few words; None when it is healthy."""
    if not receiving.alive:
        return "not receiving updates (polling or the webhook server is not running)"
    if workers.live_workers < workers.worker_count:
        return f"{workers.live_workers} of {workers.worker_count} workers alive"
    return None
