"""The PostgreSQL server of a test run and a fresh database per test.

One real server per run (testkit.postgres: Docker when an engine answers, else a local cluster).
The server starts only when a test asks for it, and a run that cannot have one fails those tests
with the reason: they never skip, so a machine without PostgreSQL cannot pass them silently.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest

from testkit.postgres import FAST, PostgresServer, PostgresUnavailable, throwaway_postgres

_databases = itertools.count(1)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    try:
        with throwaway_postgres(FAST) as server:
            yield server
    except PostgresUnavailable as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture
async def pg_dsn(postgres_server: PostgresServer) -> AsyncIterator[str]:
    """The DSN of an empty database of this test's own, dropped afterwards."""
    name = f"test_{os.getpid()}_{next(_databases)}"
    admin = await asyncpg.connect(postgres_server.dsn())
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    try:
        yield postgres_server.dsn(name)
    finally:
        admin = await asyncpg.connect(postgres_server.dsn())
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
