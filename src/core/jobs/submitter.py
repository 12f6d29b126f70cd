"""The engine as a job sees it when it enqueues other jobs: one narrow port.

The engine implements it and hands it to every running attempt (`JobContext.jobs`); the handler
side is given the engine as one. So a job that fans out never holds the engine that runs it, and
the container builds the engine and its job list in one go.
"""

from __future__ import annotations

from typing import Protocol

from ports.jobs import Guard
from ports.json import Payload


class JobSubmitter(Protocol):
    async def submit(
        self,
        name: str,
        payload: Payload,
        *,
        key: str = "",
        owner_id: int | None = None,
        requester: int | None = None,
        quick: bool = False,
        guard: Guard | None = None,
        available_at: float = 0.0,
    ) -> int | None:
        """Enqueue a registered job type with its own attempt budget, due at `available_at` (0:
        now); None if the guard refused. `requester`: whose turn it takes in the fair order;
        `quick`: cheap work for the quick lane (both ports.queue)."""
        ...
