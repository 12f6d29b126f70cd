"""The PostgreSQL server of a test run and a fresh database per test.

One real server per run (testkit.postgres: Docker when an engine answers, else a local cluster).
The server starts only when a test asks for it, and a run that cannot have one fails those tests
with the reason: they never skip, so a machine without PostgreSQL cannot pass them silently.
"""

from __future__ import annotations

import asyncio
import contextlib
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
    async with _database(postgres_server, "template0") as dsn:
        yield dsn


@pytest.fixture(scope="session")
def _migrated_template(postgres_server: PostgresServer) -> str:
    """A database migrated once per run, copied for every test that wants the schema ready."""
    from adapters.postgres.schema import migrate

    name = f"migrated_{os.getpid()}"

    async def build() -> None:
        admin = await asyncpg.connect(postgres_server.dsn())
        try:
            await admin.execute(f'CREATE DATABASE "{name}"')
        finally:
            await admin.close()
        connection = await asyncpg.connect(postgres_server.dsn(name))
        try:
            await migrate(connection)
        finally:
            await connection.close()

    asyncio.run(build())  # a session fixture runs outside any test's event loop
    return name


@pytest.fixture
async def pg_migrated_dsn(postgres_server: PostgresServer, _migrated_template: str) -> AsyncIterator[str]:
    """The DSN of a database of this test's own with vidrelay's schema in place (a copy)."""
    async with _database(postgres_server, _migrated_template) as dsn:
        yield dsn


def database_on(server: PostgresServer) -> contextlib.AbstractAsyncContextManager[str]:
    """A database of its own with vidrelay's schema not yet there, on `server`, dropped after."""
    return _database(server, "template0")


@contextlib.asynccontextmanager
async def _database(server: PostgresServer, template: str) -> AsyncIterator[str]:
    name = f"test_{os.getpid()}_{next(_databases)}"
    admin = await asyncpg.connect(server.dsn())
    try:
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    finally:
        await admin.close()
    try:
        yield server.dsn(name)
    finally:
        admin = await asyncpg.connect(server.dsn())
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
