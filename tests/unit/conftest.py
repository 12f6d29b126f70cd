"""Shared fixtures of the unit tests: the bot's real wiring over in-process fakes (tests/support/world.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.clock import VirtualClock
from tests.support.world import World


@pytest.fixture
def world_settings() -> dict[str, str]:
    """The VIDRELAY_* settings the world is built with: none but the fakes' own. A test module
    that needs others overrides this fixture, and keeps the world's building and stopping."""
    return {}


@pytest.fixture
def built_world(clock: VirtualClock, tmp_path: Path, world_settings: dict[str, str]) -> World:
    """The container as the bot builds it, over the fakes; its engine not started."""
    return World(clock, tmp_path, **world_settings)


@pytest.fixture
async def world(built_world: World) -> AsyncIterator[World]:
    """The same with its engine running (virtual time drives it), stopped at the end."""
    await built_world.engine.start()
    yield built_world
    await built_world.engine.stop(grace_seconds=0)
