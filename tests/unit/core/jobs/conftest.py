"""Shared fixtures of the engine's tests: a harness that builds an engine (stopped at the end),
the engines a test starts itself (stopped at the end too), the errors that escaped to the loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from adapters.memory.store import MemoryStore
from core.jobs.engine import Engine
from tests.support.clock import VirtualClock
from tests.support.engine_harness import Harness


@pytest.fixture
async def harness(clock: VirtualClock) -> AsyncIterator[Harness]:
    h = Harness(clock, MemoryStore())
    yield h
    if h.engine is not None:
        await h.engine.stop(grace_seconds=0)


@pytest.fixture
async def escaped() -> AsyncIterator[list[dict[str, Any]]]:
    """Every error that reached the event loop unhandled (a task that died with nobody awaiting it)."""
    loop = asyncio.get_running_loop()
    seen: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _, context: seen.append(context))
    yield seen
    loop.set_exception_handler(None)


@pytest.fixture
async def stopped_at_the_end() -> AsyncIterator[list[Engine]]:
    engines: list[Engine] = []
    yield engines
    for engine in engines:
        await engine.stop(grace_seconds=0)
