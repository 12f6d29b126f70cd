"""Shared fixtures for every test layer."""

from __future__ import annotations

import pytest

from tests.support.clock import VirtualClock
from tests.support.postgres import _migrated_template, pg_dsn, pg_migrated_dsn, postgres_server

__all__ = ["_migrated_template", "pg_dsn", "pg_migrated_dsn", "postgres_server"]


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()
