"""Shared fixtures for every test layer."""

from __future__ import annotations

import pytest

from tests.support.clock import VirtualClock
from tests.support.postgres import pg_dsn, postgres_server

__all__ = ["pg_dsn", "postgres_server"]


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()
