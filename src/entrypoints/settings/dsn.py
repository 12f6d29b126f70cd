"""The PostgreSQL URL a deployment names: VIDRELAY_DATABASE_URL as given, or the URL of its parts
(VIDRELAY_DATABASE_HOST and the rest), each part kept what it is."""

from __future__ import annotations

from typing import Protocol
from urllib.parse import quote

from pydantic import SecretStr


def postgres_dsn(host: str, port: int, user: str, password: str, database: str) -> str:
    """A URL whose parts stay what they are: each is percent-quoted (asyncpg unquotes them), so a
    `/`, `#`, `@` or `%` in a password never splits the URL where it should not."""
    location = f"[{host}]" if ":" in host else host
    secret = f":{quote(password, safe='')}" if password else ""
    return f"postgresql://{quote(user, safe='')}{secret}@{location}:{port}/{quote(database, safe='')}"


class _Database(Protocol):
    """The PostgreSQL connection's settings (entrypoints.settings.storage)."""

    @property
    def database_url(self) -> SecretStr | None: ...

    @property
    def database_host(self) -> str | None: ...

    @property
    def database_port(self) -> int: ...

    @property
    def database_user(self) -> str: ...

    @property
    def database_password(self) -> SecretStr | None: ...

    @property
    def database_name(self) -> str: ...


def dsn_of(settings: _Database) -> str:
    if settings.database_url is not None:
        return settings.database_url.get_secret_value()
    if settings.database_host is None:
        return ""
    password = settings.database_password.get_secret_value() if settings.database_password else ""
    return postgres_dsn(
        settings.database_host,
        settings.database_port,
        settings.database_user,
        password,
        settings.database_name,
    )
