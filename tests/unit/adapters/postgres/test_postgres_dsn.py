"""The PostgreSQL DSN in messages: the mask goes where the password is written, and nowhere else
(a password `p` once turned every p of the message into ***)."""

from __future__ import annotations

import pytest

from adapters.postgres.connection import reaching
from adapters.postgres.dsn import BadDsn, check_dsn, masked
from ports.errors import StoreError


@pytest.mark.parametrize(
    ("dsn", "shown"),
    [
        (
            "postgresql://postgres:p@127.0.0.1:5432/postgres",
            "postgresql://postgres:***@127.0.0.1:5432/postgres",
        ),
        (
            "postgresql://postgres:postgres@127.0.0.1:5432/postgres",
            "postgresql://postgres:***@127.0.0.1:5432/postgres",
        ),
        (
            "postgresql://bot:bot@db/bot?application_name=bot",
            "postgresql://bot:***@db/bot?application_name=bot",
        ),
        ("postgresql://b%C3%B6t:p%40ss%2Fw%3Ard@db/v%20r", "postgresql://b%C3%B6t:***@db/v%20r"),
        (
            "postgresql://db/p?user=p&password=p&sslmode=prefer",
            "postgresql://db/p?user=p&password=***&sslmode=prefer",
        ),
        (
            "postgresql://db/v?sslpassword=k%26ey&password=a+b#p",
            "postgresql://db/v?sslpassword=***&password=***#p",
        ),
        ("postgresql://u:p@db/v?password=a&b&port=5432", "postgresql://u:***@db/v?password=***&port=5432"),
        ("postgresql://bot@db/vidrelay", "postgresql://bot@db/vidrelay"),
        ("postgresql://bot:@db/vidrelay", "postgresql://bot:***@db/vidrelay"),
        ("host=db user=p password=p dbname=p", "host=db user=p password=*** dbname=p"),
        ("host=db password='a b\\' c' sslpassword=k user=p", "host=db password=*** sslpassword=*** user=p"),
    ],
)
def test_only_the_password_is_masked(dsn: str, shown: str) -> None:
    assert masked(dsn) == shown


@pytest.mark.parametrize(
    "dsn",
    [
        "postgresql://u:p@Zq@db/v",  # a raw @: asyncpg's host would be "Zq@db"
        "postgresql://u:pa/Zq@db/v",  # a raw /: urllib's host part is "u:pa"
        "postgresql://u:12/Zq@db/v",  # the same, with a "port" urllib accepts
        "postgresql://u:12?Zq@db/v",  # a raw ?: the rest is a query
        "postgresql://u:12#Zq@db/v",
    ],
)
def test_a_password_with_raw_delimiters_is_masked_whole_and_refused(dsn: str) -> None:
    assert "Zq" not in masked(dsn)
    with pytest.raises(BadDsn) as refused:
        check_dsn(dsn)
    assert "Zq" not in str(refused.value)


def test_a_query_of_other_than_name_value_pairs_is_refused_without_quoting_it() -> None:
    with pytest.raises(BadDsn, match="not name=value pairs") as refused:
        check_dsn("postgresql://db/v?password=hunter&2")
    assert "hunter" not in str(refused.value)
    assert "&2" not in str(refused.value)


@pytest.mark.parametrize("password", ["p", "postgres", "127", "%70"])
def test_the_connect_refusal_keeps_the_drivers_words(password: str) -> None:
    dsn = f"postgresql://postgres:{password}@127.0.0.1:1/postgres"
    reason = OSError("Multiple exceptions: [Errno 111] Connect call failed ('127.0.0.1', 1)")

    with pytest.raises(StoreError) as refused, reaching(dsn):
        raise reason
    assert str(refused.value) == (
        "cannot connect to PostgreSQL at postgresql://postgres:***@127.0.0.1:1/postgres:"
        " Multiple exceptions: [Errno 111] Connect call failed ('127.0.0.1', 1)"
    )
