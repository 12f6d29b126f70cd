"""Shared fixtures for every test layer."""

from __future__ import annotations

import pytest
from hypothesis import settings

from adapters.memory.store import MemoryStore
from adapters.telegram.deferred_models import defer_aiogram_models
from tests.support.clock import VirtualClock
from tests.support.postgres import _migrated_template, pg_dsn, pg_migrated_dsn, postgres_server

__all__ = ["_migrated_template", "pg_dsn", "pg_migrated_dsn", "postgres_server"]

# aiogram as the bot imports it (its models built on first use), whichever test module imports
# it first: the in-process tests meet the models the bot process meets.
defer_aiogram_models()

# Hypothesis' default 200 ms deadline is a timed assertion: on a shared, loaded 2-core machine a
# property that holds can still fail it. Speed is for bench/, so the properties run untimed.
settings.register_profile("vidrelay", deadline=None)
settings.load_profile("vidrelay")


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()


@pytest.fixture
def store() -> MemoryStore:
    """The rows in memory, for a test that needs a store but tests none (the contract suite and
    the SQLite adapter's tests give their own)."""
    return MemoryStore()
