"""PostgreSQL migrations on a real server: versioned, transactional, once under concurrency."""

from __future__ import annotations

import asyncio
import sys
import textwrap

import asyncpg
import pytest

from adapters.postgres.schema import (
    MIGRATIONS,
    VERSIONS_TABLE,
    Migration,
    SchemaTooNew,
    migrate,
    schema_version,
)


async def tables(connection: asyncpg.Connection) -> set[str]:
    rows = await connection.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    return {row[0] for row in rows}


@pytest.fixture
async def connection(pg_dsn: str) -> asyncpg.Connection:
    opened = await asyncpg.connect(pg_dsn)
    yield opened
    await opened.close()


async def test_an_empty_database_is_migrated_to_the_latest_version(connection: asyncpg.Connection) -> None:
    assert await schema_version(connection) == 0

    assert await migrate(connection) == len(MIGRATIONS)

    assert await schema_version(connection) == len(MIGRATIONS)
    assert {"pending", "blobs", "video_info", "handled_urls", VERSIONS_TABLE} <= await tables(connection)
    names = [r[0] for r in await connection.fetch(f"SELECT name FROM {VERSIONS_TABLE} ORDER BY version")]
    assert names == [m.name for m in MIGRATIONS]


async def test_a_migrated_database_is_left_alone(connection: asyncpg.Connection) -> None:
    await migrate(connection)

    assert await migrate(connection) == 0
    assert await schema_version(connection) == len(MIGRATIONS)


async def test_a_migration_that_fails_leaves_the_version_before_it(connection: asyncpg.Connection) -> None:
    broken = Migration(
        "half done", ("CREATE TABLE half (n integer)", "CREATE TABLE oops (n nonexistent_type)")
    )

    with pytest.raises(asyncpg.PostgresError):
        await migrate(connection, [*MIGRATIONS, broken])

    assert await schema_version(connection) == len(MIGRATIONS)
    assert "half" not in await tables(connection)


async def test_a_database_from_a_newer_release_is_refused_untouched(connection: asyncpg.Connection) -> None:
    await migrate(connection)
    await connection.execute(f"INSERT INTO {VERSIONS_TABLE} (version, name) VALUES ($1, 'future')", 99)
    before = await tables(connection)

    with pytest.raises(SchemaTooNew, match="schema version 99"):
        await migrate(connection)

    assert await tables(connection) == before
    assert await schema_version(connection) == 99


_MIGRATE_WHEN_TOLD = textwrap.dedent(
    """
    import asyncio, sys
    import asyncpg
    from adapters.postgres.schema import migrate

    async def main():
        connection = await asyncpg.connect(sys.argv[1])
        print("ready", flush=True)
        sys.stdin.readline()
        print("applied", await migrate(connection), flush=True)
        await connection.close()

    asyncio.run(main())
    """
)


@pytest.mark.slow
async def test_processes_starting_at_once_on_an_empty_database_migrate_it_once(pg_dsn: str) -> None:
    children = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            _MIGRATE_WHEN_TOLD,
            pg_dsn,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        for _ in range(4)
    ]
    for child in children:  # every one connected before any starts: they race for real
        assert child.stdout is not None
        assert await asyncio.wait_for(child.stdout.readline(), 30) == b"ready\n"
    for child in children:
        assert child.stdin is not None
        child.stdin.write(b"go\n")
        await child.stdin.drain()
    results = [await asyncio.wait_for(child.communicate(), 60) for child in children]

    assert [child.returncode for child in children] == [0] * 4, [err.decode() for _, err in results]
    # Each migration is one locked transaction: several processes may share the work, but every
    # migration runs exactly once.
    applied = [int(out.decode().split()[-1]) for out, _ in results]
    assert sum(applied) == len(MIGRATIONS)
    connection = await asyncpg.connect(pg_dsn)
    try:
        versions = [r[0] for r in await connection.fetch(f"SELECT version FROM {VERSIONS_TABLE} ORDER BY 1")]
    finally:
        await connection.close()
    assert versions == list(range(1, len(MIGRATIONS) + 1))
