"""DSN handling against a real server: every refusal is a StoreError of one line, password masked."""

from __future__ import annotations

import os
import socket
from urllib.parse import urlsplit

import asyncpg
import pytest

from adapters.postgres.connection import connect, open_pool
from adapters.postgres.dsn import BadDsn, check_dsn, masked
from entrypoints.settings import load_settings
from ports.errors import StoreError
from testkit.postgres import PostgresServer


@pytest.mark.parametrize(
    ("dsn", "shown"),
    [
        ("postgresql://bot:s3cr%40t@db:5432/vidrelay", "postgresql://bot:***@db:5432/vidrelay"),
        ("postgres://bot@db/vidrelay", "postgres://bot@db/vidrelay"),
        (
            "postgresql://db/vidrelay?user=bot&password=hunter2",
            "postgresql://db/vidrelay?user=bot&password=***",
        ),
        ("postgresql://bot:pw@[::1/vidrelay", "postgresql://bot:***@[::1/vidrelay"),
    ],
)
def test_the_password_is_masked(dsn: str, shown: str) -> None:
    assert masked(dsn) == shown


@pytest.mark.parametrize(
    ("dsn", "reason"),
    [
        ("", "not a postgresql:// URL"),
        ("mysql://bot:hunter2@db/vidrelay", "not a postgresql:// URL"),
        ("host=db password=hunter2", "not a postgresql:// URL"),
        ("postgresql:///vidrelay", "names no host"),
        ("postgresql://bot:hunter2@db:99999/vidrelay", "not a valid URL"),
    ],
)
def test_a_dsn_that_is_not_a_postgres_url_is_refused(dsn: str, reason: str) -> None:
    with pytest.raises(BadDsn, match=reason) as refused:
        check_dsn(dsn)
    assert "hunter2" not in str(refused.value)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


async def test_a_wrong_password_is_refused_without_showing_it(postgres_server: PostgresServer) -> None:
    dsn = f"postgresql://postgres:not-the-password@127.0.0.1:{postgres_server.port}/postgres"

    with pytest.raises(StoreError) as refused:
        await connect(dsn)

    message = str(refused.value)
    assert "not-the-password" not in message
    assert message.startswith(
        f"cannot connect to PostgreSQL at postgresql://postgres:***@127.0.0.1:{postgres_server.port}"
    )
    assert "password authentication failed" in message
    assert "\n" not in message


async def test_an_unreachable_server_is_refused_in_one_line() -> None:
    dsn = f"postgresql://bot:hunter2@127.0.0.1:{_closed_port()}/vidrelay"

    with pytest.raises(StoreError, match="cannot connect to PostgreSQL") as refused:
        await open_pool(dsn, 2)

    assert "hunter2" not in str(refused.value)
    assert "\n" not in str(refused.value)


async def test_a_missing_database_is_refused(postgres_server: PostgresServer) -> None:
    with pytest.raises(StoreError, match='database "no_such_db" does not exist'):
        await connect(postgres_server.dsn("no_such_db"))


async def test_a_good_dsn_connects(pg_dsn: str) -> None:
    pool = await open_pool(pg_dsn, 2)
    try:
        assert await pool.fetchval("SELECT current_setting('application_name')") == "vidrelay"
    finally:
        await pool.close()


@pytest.mark.parametrize("password", ["p", "postgres"])
async def test_a_short_or_user_named_wrong_password_leaves_the_servers_words_whole(
    postgres_server: PostgresServer, password: str
) -> None:
    dsn = f"postgresql://postgres:{password}@127.0.0.1:{postgres_server.port}/postgres"

    with pytest.raises(StoreError) as refused:
        await connect(dsn)

    shown = f"postgresql://postgres:***@127.0.0.1:{postgres_server.port}/postgres"
    assert str(refused.value).startswith(f"cannot connect to PostgreSQL at {shown}: ")
    assert 'password authentication failed for user "postgres"' in str(refused.value)


async def test_a_password_of_any_characters_connects_through_the_settings_parts(pg_dsn: str) -> None:
    """What compose.yaml passes (VIDRELAY_DATABASE_HOST and its parts), against a real server."""
    password = "p/a#s@s:w%rd?&=+ ä"
    role, url = f"hard_password_{os.getpid()}", urlsplit(pg_dsn)
    admin = await asyncpg.connect(pg_dsn)
    try:
        create = await admin.fetchval(
            "SELECT format('CREATE ROLE %I LOGIN PASSWORD %L', $1::text, $2::text)", role, password
        )
        await admin.execute(create)
        settings = load_settings(
            {
                "VIDRELAY_STORE": "postgres",
                "VIDRELAY_DATABASE_HOST": str(url.hostname),
                "VIDRELAY_DATABASE_PORT": str(url.port),
                "VIDRELAY_DATABASE_USER": role,
                "VIDRELAY_DATABASE_PASSWORD": password,
                "VIDRELAY_DATABASE_NAME": url.path.lstrip("/"),
            }
        )
        connection = await asyncpg.connect(settings.database_dsn)
        try:
            assert await connection.fetchval("SELECT current_user") == role
        finally:
            await connection.close()
    finally:
        await admin.execute(f'DROP ROLE IF EXISTS "{role}"')
        await admin.close()
